"""Rewrites DER receipts for test_receipt.c (called by receipt_forgeries.sh), at test time:

  payload IN OUT TYPE HEX      the receipt payload IN with attribute TYPE's value replaced by a
                               UTF8String of the bytes HEX (or "big:N" for N bytes of hostile text)
  certs IN OUT reorder|extra:DER   a signed receipt with its certificate set reversed, or with
                               one more certificate appended: the signature stays valid, since
                               the certificates are outside the signed bytes

Definite-length DER only (what `openssl cms -sign` writes and Apple's App Store receipts use).
"""
import sys


def header(b: bytes, i: int):
    """(content start, content end) of the element at i."""
    n = b[i + 1]
    if n < 0x80:
        return i + 2, i + 2 + n
    k = n & 0x7F
    length = int.from_bytes(b[i + 2:i + 2 + k], "big")
    return i + 2 + k, i + 2 + k + length


def children(b: bytes, start: int, end: int):
    out = []
    while start < end:
        cs, ce = header(b, start)
        out.append(b[start:ce])
        start = ce
    return out


def encode(tag: int, content: bytes) -> bytes:
    n = len(content)
    if n < 0x80:
        return bytes([tag, n]) + content
    size = n.to_bytes((n.bit_length() + 7) // 8, "big")
    return bytes([tag, 0x80 | len(size)]) + size + content


def content(element: bytes) -> bytes:
    cs, ce = header(element, 0)
    return element[cs:ce]


def hostile(n: int) -> bytes:
    unit = b"Production\n\x1b[31mFORGED\x1b[0m\r\x00"
    return (unit * (n // len(unit) + 1))[:n]


def rewrite_payload(data: bytes, attribute: int, value: bytes) -> bytes:
    cs, ce = header(data, 0)
    attributes = []
    for attr in children(data, cs, ce):
        fields = children(attr, *header(attr, 0))
        if int.from_bytes(content(fields[0]), "big") == attribute:
            fields[2] = encode(0x04, encode(0x0C, value))
            attr = encode(0x30, b"".join(fields))
        attributes.append(attr)
    return encode(0x31, b"".join(attributes))


def rewrite_certificates(data: bytes, how: str) -> bytes:
    info = children(data, *header(data, 0))                 # contentType, [0]
    signed = content(info[1])                               # SignedData SEQUENCE
    fields = children(signed, *header(signed, 0))
    for k, f in enumerate(fields):
        if f[0] == 0xA0:                                    # [0] certificates
            certs = children(f, *header(f, 0))
            if how == "reorder":
                certs = certs[::-1]
            else:
                certs.append(open(how.split(":", 1)[1], "rb").read())
            fields[k] = encode(0xA0, b"".join(certs))
    signed = encode(0x30, b"".join(fields))
    return encode(0x30, info[0] + encode(0xA0, signed))


def main() -> None:
    mode, source, target = sys.argv[1:4]
    data = open(source, "rb").read()
    if mode == "payload":
        spec = sys.argv[5]
        value = hostile(int(spec[4:])) if spec.startswith("big:") else bytes.fromhex(spec)
        out = rewrite_payload(data, int(sys.argv[4]), value)
    else:
        out = rewrite_certificates(data, sys.argv[4])
    open(target, "wb").write(out)


if __name__ == "__main__":
    main()
