/* The EULA and store API from C: every function, NULL arguments, odd files, large files,
 * non-UTF-8 user names, and the history JSON read back. */
#include "check.h"

#include <stdint.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char folder[] = "/tmp/gatekit-c-eula-XXXXXX";

static const char *path_in(const char *name) { return check_path_in(folder, name); }

static void write_file(const char *path, const void *data, size_t len) {
    FILE *f = fopen(path, "wb");
    if (!f) { perror(path); exit(2); }
    if (len && fwrite(data, 1, len, f) != len) { perror(path); exit(2); }
    fclose(f);
}

/* Counts occurrences of a substring (history entries are flat objects). */
static int count(const char *haystack, const char *needle) {
    int n = 0;
    for (const char *p = strstr(haystack, needle); p; p = strstr(p + 1, needle)) n++;
    return n;
}

static void test_version_and_errors(void) {
    CHECK_STR(gatekit_version(), GATEKIT_VERSION_STRING);
    CHECK(gatekit_version_number() == GATEKIT_VERSION_NUMBER);
    CHECK(gatekit_hash_hex_size() == GATEKIT_HASH_HEX_SIZE);
    CHECK_STR(gatekit_strerror(GATEKIT_OK), "success");
    const int codes[] = {GATEKIT_EINVAL, GATEKIT_ENOTFOUND, GATEKIT_EIO, GATEKIT_EBUSY, GATEKIT_ECORRUPT,
                         GATEKIT_ENEWER, GATEKIT_ENOMEM, GATEKIT_EINTERNAL, GATEKIT_ENOTSTORE,
                         GATEKIT_EREADONLY, GATEKIT_EVERSION, GATEKIT_ETOOLARGE};
    for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++) {
        CHECK(strcmp(gatekit_strerror(codes[i]), "unknown error") != 0);
        for (size_t j = 0; j < i; j++) CHECK(strcmp(gatekit_strerror(codes[i]), gatekit_strerror(codes[j])) != 0);
    }
    CHECK_STR(gatekit_strerror(-99999), "unknown error");
    CHECK_STR(gatekit_strerror(12345), "unknown error");
    CHECK(gatekit_last_error() != NULL);
    gatekit_free(NULL);
}

static void test_hashing(void) {
    char hash[GATEKIT_HASH_HEX_SIZE];
    CHECK_RC(eula_hash_bytes(hash, "abc", 3), GATEKIT_OK);
    CHECK_STR(hash, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    CHECK_RC(eula_hash_bytes(hash, NULL, 0), GATEKIT_OK);
    CHECK_STR(hash, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    CHECK_RC(eula_hash_bytes(hash, NULL, 3), GATEKIT_EINVAL);
    CHECK(strstr(gatekit_last_error(), "data") != NULL);
    CHECK_RC(eula_hash_bytes(NULL, "abc", 3), GATEKIT_EINVAL);
    CHECK_RC(eula_hash_bytes(hash, "abc", SIZE_MAX), GATEKIT_EINVAL);

    write_file(path_in("empty.txt"), "", 0);  /* a 0-byte EULA is a document like any other */
    CHECK_RC(eula_hash_file(hash, path_in("empty.txt")), GATEKIT_OK);
    CHECK_STR(hash, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    CHECK_RC(eula_hash_file(hash, path_in("absent.txt")), GATEKIT_ENOTFOUND);
    CHECK(strstr(gatekit_last_error(), "absent.txt") != NULL);
    CHECK_RC(eula_hash_file(hash, folder), GATEKIT_EIO);
    CHECK_RC(eula_hash_file(hash, NULL), GATEKIT_EINVAL);
    CHECK_RC(eula_hash_file(NULL, path_in("empty.txt")), GATEKIT_EINVAL);
}

static void test_large_document(gatekit_store *store) {
    /* 50 MB: streamed, and the same hash as the bytes in memory. */
    size_t len = 50u * 1024 * 1024;
    unsigned char *big = malloc(len);
    CHECK(big != NULL);
    if (!big) return;
    for (size_t i = 0; i < len; i++) big[i] = (unsigned char)(i * 2654435761u >> 24);
    write_file(path_in("big.txt"), big, len);
    char from_file[GATEKIT_HASH_HEX_SIZE], from_bytes[GATEKIT_HASH_HEX_SIZE];
    CHECK_RC(eula_hash_file(from_file, path_in("big.txt")), GATEKIT_OK);
    CHECK_RC(eula_hash_bytes(from_bytes, big, len), GATEKIT_OK);
    CHECK_STR(from_file, from_bytes);
    CHECK_RC(eula_should_present(store, "big", path_in("big.txt"), NULL), 1);
    CHECK_RC(eula_accept(store, "big", from_file, NULL), GATEKIT_OK);
    CHECK_RC(eula_should_present(store, "big", path_in("big.txt"), NULL), 0);
    free(big);
}

/* An unreadable EULA is GATEKIT_EIO. Root reads any file, so as root the check runs in a
 * child that has dropped to the unprivileged "nobody" (65534). */
static int unreadable_file_is_io_error(const char *path) {
    char hash[GATEKIT_HASH_HEX_SIZE];
    if (geteuid() != 0) return eula_hash_file(hash, path) == GATEKIT_EIO;
    pid_t pid = fork();
    if (pid == 0) {
        if (check_become_nobody() != 0) _exit(3);
        _exit(eula_hash_file(hash, path) == GATEKIT_EIO ? 0 : 1);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

static void test_gating(gatekit_store *store) {
    const char *v1 = "Terms v1\n", *v2 = "Terms v2\n";
    write_file(path_in("EULA.txt"), v1, strlen(v1));
    char h1[GATEKIT_HASH_HEX_SIZE], h2[GATEKIT_HASH_HEX_SIZE];
    CHECK_RC(eula_hash_bytes(h1, v1, strlen(v1)), GATEKIT_OK);
    CHECK_RC(eula_hash_bytes(h2, v2, strlen(v2)), GATEKIT_OK);

    CHECK_RC(eula_should_present(store, "terms", path_in("EULA.txt"), NULL), 1);
    CHECK_RC(eula_accept(store, "terms", h1, NULL), GATEKIT_OK);
    CHECK_RC(eula_should_present(store, "terms", path_in("EULA.txt"), NULL), 0);
    CHECK_RC(eula_should_present_hash(store, "terms", h1, NULL), 0);
    CHECK_RC(eula_should_present(store, "terms", path_in("EULA.txt"), "alice"), 1);

    /* The text changes: presented again; accepting a different (shown) text is legal. */
    write_file(path_in("EULA.txt"), v2, strlen(v2));
    CHECK_RC(eula_should_present(store, "terms", path_in("EULA.txt"), NULL), 1);
    CHECK_RC(eula_accept(store, "terms", h1, NULL), GATEKIT_OK);
    CHECK_RC(eula_should_present(store, "terms", path_in("EULA.txt"), NULL), 1);

    /* A minor revision is covered by the acceptance of its base; a decline re-presents. */
    CHECK_RC(eula_mark_minor_revision(store, "terms", h1, h2), GATEKIT_OK);
    CHECK_RC(eula_mark_minor_revision(store, "terms", h1, h2), GATEKIT_OK);  /* idempotent */
    CHECK_RC(eula_should_present(store, "terms", path_in("EULA.txt"), NULL), 0);
    CHECK_RC(eula_decline(store, "terms", h2, NULL), GATEKIT_OK);
    CHECK_RC(eula_should_present(store, "terms", path_in("EULA.txt"), NULL), 1);

    /* A missing or unreadable file is an error, never an answer. */
    CHECK_RC(eula_should_present(store, "terms", path_in("missing.txt"), NULL), GATEKIT_ENOTFOUND);
    CHECK_RC(eula_should_present(store, "terms", folder, NULL), GATEKIT_EIO);
    chmod(path_in("EULA.txt"), 0);
    CHECK(unreadable_file_is_io_error(path_in("EULA.txt")));
    chmod(path_in("EULA.txt"), 0644);
}

static void test_users_and_history(gatekit_store *store) {
    char h[GATEKIT_HASH_HEX_SIZE];
    CHECK_RC(eula_hash_bytes(h, "privacy", 7), GATEKIT_OK);
    const char latin1[] = {'J', (char)0xF6, 'r', 'g', 0};  /* not UTF-8 */
    CHECK_RC(eula_accept(store, "privacy", h, latin1), GATEKIT_OK);
    CHECK_RC(eula_should_present_hash(store, "privacy", h, latin1), 0);
    CHECK_RC(eula_should_present_hash(store, "privacy", h, "J\xc3\xb6rg"), 1);  /* the UTF-8 spelling is another user */
    CHECK_RC(eula_decline(store, "privacy", h, "J\xc3\xb6rg"), GATEKIT_OK);

    char *json = NULL;
    CHECK_RC(eula_history(&json, store, "privacy", latin1), GATEKIT_OK);
    static const char prefix[] = "{\"version\":1,\"decisions\":[";
    CHECK(json && strncmp(json, prefix, sizeof prefix - 1) == 0);
    if (json) {
        CHECK(count(json, "\"document_id\":\"privacy\"") == 1);
        CHECK(strstr(json, "\"user_hex\":\"4af67267\"") != NULL);
        CHECK(strstr(json, "\"decision\":\"accepted\"") != NULL);
        CHECK(strstr(json, h) != NULL);
        /* "at": RFC 3339 UTC with milliseconds. */
        const char *at = strstr(json, "\"at\":\"");
        CHECK(at && strlen(at) > 30 && at[10] == '-' && at[16] == 'T' && at[25] == '.' && at[29] == 'Z');
    }
    gatekit_free(json);

    json = NULL;
    CHECK_RC(eula_history(&json, store, "privacy", "J\xc3\xb6rg"), GATEKIT_OK);
    CHECK(json && strstr(json, "\"user\":\"J\xc3\xb6rg\"") && strstr(json, "\"decision\":\"declined\"") && !strstr(json, "user_hex"));
    gatekit_free(json);

    json = NULL;
    CHECK_RC(eula_history(&json, store, "terms", NULL), GATEKIT_OK);
    /* accept h1, accept h1 (shown text), decline h2: oldest first. */
    CHECK(json && count(json, "\"decision\":") == 3 && count(json, "\"user\":null") == 3);
    if (json) CHECK(strstr(json, "accepted") < strstr(json, "declined"));
    gatekit_free(json);

    json = NULL;
    CHECK_RC(eula_history_all(&json, store, NULL), GATEKIT_OK);
    CHECK(json && count(json, "\"decision\":") == 6);  /* big, terms x3, privacy x2 */
    gatekit_free(json);

    json = NULL;
    CHECK_RC(eula_history(&json, store, "nothing-here", NULL), GATEKIT_OK);
    CHECK_STR(json, "{\"version\":1,\"decisions\":[]}");
    gatekit_free(json);
}

/* How consent was given, withdrawal, and headless acceptance bound to one text (EULA II). */
static void test_consent_and_withdrawal(gatekit_store *store) {
    char h1[GATEKIT_HASH_HEX_SIZE], h2[GATEKIT_HASH_HEX_SIZE];
    CHECK_RC(eula_hash_bytes(h1, "cookies v1", 10), GATEKIT_OK);
    CHECK_RC(eula_hash_bytes(h2, "cookies v2", 10), GATEKIT_OK);
    gatekit_eula_consent how = GATEKIT_EULA_CONSENT_INIT;
    CHECK_RC(eula_consent_init(&how, GATEKIT_EULA_CONSENT_VERSION), GATEKIT_OK);
    CHECK(how.method == GATEKIT_EULA_METHOD_UNSPECIFIED && how.client_address == NULL && how.metadata_count == 0);
    const char *keys[2] = {"campaign", "checkbox"}, *values[2] = {"spring \"26\"", "marketing=no"};
    how.method = GATEKIT_EULA_METHOD_CLICK_THROUGH;
    how.client_address = "2001:DB8:0:0::7";
    how.user_agent = "Mozilla/5.0 (X11; Linux x86_64)";
    how.locale = "de-AT";
    how.metadata_keys = keys;
    how.metadata_values = values;
    how.metadata_count = 2;
    CHECK_RC(eula_accept_with(store, "cookies", h1, "carol", &how), GATEKIT_OK);
    CHECK_RC(eula_should_present_hash(store, "cookies", h1, "carol"), 0);

    /* A malformed part records nothing: the last error names it. */
    gatekit_eula_consent bad = how;
    bad.client_address = "carol.example";
    CHECK_RC(eula_accept_with(store, "cookies", h2, "carol", &bad), GATEKIT_EINVAL);
    CHECK(strstr(gatekit_last_error(), "client_address") != NULL);
    bad = how;
    bad.locale = "german";  /* 6 letters: a language subtag is 2-8 letters, so this one is well-formed */
    CHECK_RC(eula_accept_with(store, "cookies", h2, "carol", &bad), GATEKIT_OK);
    CHECK_RC(eula_decline_with(store, "cookies", h2, "carol", NULL), GATEKIT_OK);
    bad = how;
    bad.locale = "de-";
    CHECK_RC(eula_accept_with(store, "cookies", h2, "carol", &bad), GATEKIT_EINVAL);
    CHECK(strstr(gatekit_last_error(), "locale") != NULL);

    /* Withdrawal: recorded as such, and every text of the document is presented again. */
    CHECK_RC(eula_should_present_hash(store, "cookies", h1, "carol"), 0);
    gatekit_eula_consent admin = GATEKIT_EULA_CONSENT_INIT;
    admin.method = GATEKIT_EULA_METHOD_ADMIN;
    CHECK_RC(eula_withdraw(store, "cookies", "carol", &admin), GATEKIT_OK);
    CHECK_RC(eula_should_present_hash(store, "cookies", h1, "carol"), 1);
    CHECK_RC(eula_should_present_hash(store, "cookies", h2, "carol"), 1);
    CHECK_RC(eula_withdraw(store, "cookies", "carol", NULL), GATEKIT_ENOTFOUND);  /* nothing in force any more */
    CHECK_RC(eula_withdraw(store, "cookies", "dave", NULL), GATEKIT_ENOTFOUND);   /* never accepted */
    CHECK_RC(eula_accept(store, "cookies", h1, "carol"), GATEKIT_OK);            /* accepted anew */
    CHECK_RC(eula_should_present_hash(store, "cookies", h1, "carol"), 0);

    char *json = NULL;
    CHECK_RC(eula_history(&json, store, "cookies", "carol"), GATEKIT_OK);
    CHECK(json && count(json, "\"decision\":") == 5);
    if (json) {
        CHECK(strstr(json, "\"method\":\"click-through\",\"client_address\":\"2001:db8::7\",\"user_agent\":\"Mozilla/5.0 (X11; Linux x86_64)\","
                           "\"locale\":\"de-AT\",\"metadata\":{\"campaign\":\"spring \\\"26\\\"\",\"checkbox\":\"marketing=no\"}") != NULL);
        const char *withdrawn = strstr(json, "\"decision\":\"withdrawn\"");
        CHECK(withdrawn != NULL && strstr(json, "\"method\":\"admin\"") > withdrawn);
        /* The withdrawal names the text whose acceptance it ended: h1 (h2 was declined). */
        const char *entry = withdrawn;
        while (entry && entry > json && *entry != '{') entry--;
        CHECK(entry && strstr(entry, h1) && strstr(entry, h1) < withdrawn);
    }
    gatekit_free(json);

    /* Headless, bound to one text: a prefix of this text's hash accepts it; another text's
     * prefix is refused and records nothing; a list that does not name the document is 0. */
    char names[128];
    snprintf(names, sizeof names, "privacy@00000000, cookies@%.12s", h2);
    gatekit_eula_consent flag = GATEKIT_EULA_CONSENT_INIT;
    flag.method = GATEKIT_EULA_METHOD_CLI_FLAG;
    CHECK_RC(eula_accept_named(store, "cookies", h2, "erin", names, &flag), 1);
    CHECK_RC(eula_should_present_hash(store, "cookies", h2, "erin"), 0);
    CHECK_RC(eula_accept_named(store, "cookies", h1, "frank", names, &flag), GATEKIT_EEULA_HASH_MISMATCH);
    CHECK(strstr(gatekit_last_error(), h1) != NULL);
    CHECK_RC(eula_should_present_hash(store, "cookies", h1, "frank"), 1);
    CHECK_RC(eula_accept_named(store, "terms", h1, "frank", names, &flag), 0);
    CHECK_RC(eula_accept_named(store, "cookies", h2, "frank", "cookies@", &flag), GATEKIT_EINVAL);

    snprintf(names, sizeof names, "cookies@%.8s", h1);
    CHECK_RC(eula_accept_from_env(store, "cookies", h1, "gina", "GATEKIT_TEST_ACCEPT", NULL), 0);  /* unset */
    setenv("GATEKIT_TEST_ACCEPT", names, 1);
    CHECK_RC(eula_accept_from_env(store, "cookies", h1, "gina", "GATEKIT_TEST_ACCEPT", NULL), 1);
    CHECK_RC(eula_accept_from_env(store, "cookies", h2, "hank", "GATEKIT_TEST_ACCEPT", NULL), GATEKIT_EEULA_HASH_MISMATCH);
    CHECK(strstr(gatekit_last_error(), "GATEKIT_TEST_ACCEPT") != NULL);
    unsetenv("GATEKIT_TEST_ACCEPT");
    json = NULL;
    CHECK_RC(eula_history(&json, store, "cookies", "gina"), GATEKIT_OK);
    CHECK(json && count(json, "\"decision\":\"accepted\"") == 1 &&
          strstr(json, "\"method\":\"environment\",\"metadata\":{\"variable\":\"GATEKIT_TEST_ACCEPT\"}") != NULL);
    gatekit_free(json);
    json = NULL;
    CHECK_RC(eula_history(&json, store, "cookies", "hank"), GATEKIT_OK);
    CHECK_STR(json, "{\"version\":1,\"decisions\":[]}");
    gatekit_free(json);
}

/* Collects an export in memory. */
typedef struct { char *data; size_t length, capacity; int calls; } sink;

static int collect(void *context, const void *bytes, size_t length) {
    sink *k = context;
    if (k->length + length + 1 > k->capacity) {
        size_t capacity = (k->length + length + 1) * 2;
        char *grown = realloc(k->data, capacity);
        if (!grown) return 1;
        k->data = grown;
        k->capacity = capacity;
    }
    memcpy(k->data + k->length, bytes, length);
    k->length += length;
    k->data[k->length] = 0;
    k->calls++;
    return 0;
}

static int stop_writing(void *context, const void *bytes, size_t length) { (void)context; (void)bytes; (void)length; return 1; }

/* Published versions: translations with their fallback, a schedule crossing at its exact
 * millisecond with a grace period, the text read back, and an export checked against the store. */
static void test_publication_and_export(gatekit_store *store) {
    const long long effective = 4102444800000LL;  /* 2100-01-01: scheduled far ahead */
    const long long grace = 7LL * 86400000;
    gatekit_eula_text v1_texts[] = {
        {.language = "en", .bytes = "Terms, version 1", .length = 16},
        {.language = "de", .bytes = "Bedingungen, Version 1", .length = 22},
    };
    write_file(path_in("v2-fr.txt"), "Conditions, version 2", 21);
    gatekit_eula_text v2_texts[] = {
        {.language = "en", .bytes = "Terms, version 2", .length = 16},
        {.language = "fr", .path = path_in("v2-fr.txt")},
    };
    gatekit_eula_publication v1 = GATEKIT_EULA_PUBLICATION_INIT;
    v1.label = "2026-11";
    v1.default_language = "en";
    v1.texts = v1_texts;
    v1.text_count = 2;
    CHECK_RC(eula_publish(store, "pub", &v1), GATEKIT_OK);
    CHECK_RC(eula_publish(store, "pub", &v1), GATEKIT_OK);  /* the same again: nothing to do */
    gatekit_eula_publication v2;
    CHECK_RC(eula_publication_init(&v2, GATEKIT_EULA_PUBLICATION_VERSION), GATEKIT_OK);
    v2.label = "2100-01";
    v2.effective_ms = effective;
    v2.grace_ms = grace;
    v2.default_language = "en";
    v2.texts = v2_texts;
    v2.text_count = 2;
    CHECK_RC(eula_publish(store, "pub", &v2), GATEKIT_OK);
    v2.grace_ms = 0;
    CHECK_RC(eula_publish(store, "pub", &v2), GATEKIT_EEULA_VERSION_CONFLICT);
    CHECK(strstr(gatekit_last_error(), "2100-01") != NULL);

    /* Asked in Austrian German: the German text (de-AT -> de); required until accepted. */
    gatekit_eula_presentation p = {.version = GATEKIT_EULA_PRESENTATION_VERSION};
    CHECK_RC(eula_should_present_at(&p, store, "pub", "ann", "de-AT", 0), 1);
    CHECK(p.status == GATEKIT_EULA_REQUIRED && strcmp(p.label, "2026-11") == 0 && strcmp(p.language, "de") == 0);
    CHECK(p.next_effective_ms == effective && p.required_at_ms == p.effective_ms);
    char german[GATEKIT_HASH_HEX_SIZE];
    CHECK_RC(eula_hash_bytes(german, "Bedingungen, Version 1", 22), GATEKIT_OK);
    CHECK_STR(p.hash, german);
    void *text = NULL;
    size_t length = 0;
    CHECK_RC(eula_text(&text, &length, store, "pub", p.hash), GATEKIT_OK);
    CHECK(length == 22 && text && strcmp(text, "Bedingungen, Version 1") == 0);
    gatekit_free(text);
    CHECK_RC(eula_text(&text, &length, store, "pub", "0000000000000000000000000000000000000000000000000000000000000000"), GATEKIT_ENOTFOUND);
    CHECK(text == NULL && length == 0);

    gatekit_eula_consent how = GATEKIT_EULA_CONSENT_INIT;
    how.method = GATEKIT_EULA_METHOD_CLICK_THROUGH;
    how.client_address = "198.51.100.4";
    CHECK_RC(eula_accept_with(store, "pub", p.hash, "ann", &how), GATEKIT_OK);
    /* Any translation accepted the version: in English too, and by the English text's hash. */
    CHECK_RC(eula_should_present_at(&p, store, "pub", "ann", "en-GB", 0), 0);
    CHECK(p.status == GATEKIT_EULA_ACCEPTED && strcmp(p.language, "en") == 0);
    CHECK_RC(eula_should_present_hash(store, "pub", p.hash, "ann"), 0);
    CHECK_RC(eula_should_present_hash(store, "pub", p.hash, "bo"), 1);

    /* The schedule: v1 until the millisecond before, v2 from it — in grace for Ann, who
     * accepted v1, until effect + grace; required for Bo at once. */
    CHECK_RC(eula_should_present_at(&p, store, "pub", "ann", "fr", effective - 1), 0);
    CHECK(strcmp(p.label, "2026-11") == 0 && p.status == GATEKIT_EULA_ACCEPTED);
    CHECK_RC(eula_should_present_at(&p, store, "pub", "ann", "fr", effective), 0);
    CHECK(strcmp(p.label, "2100-01") == 0 && p.status == GATEKIT_EULA_IN_GRACE && strcmp(p.language, "fr") == 0);
    CHECK(p.required_at_ms == effective + grace && p.next_effective_ms == 0);
    CHECK_RC(eula_should_present_at(&p, store, "pub", "ann", "fr", effective + grace - 1), 0);
    CHECK_RC(eula_should_present_at(&p, store, "pub", "ann", "fr", effective + grace), 1);
    CHECK(p.status == GATEKIT_EULA_REQUIRED);
    CHECK_RC(eula_should_present_at(NULL, store, "pub", "bo", NULL, effective), 1);
    CHECK_RC(eula_should_present_at(&p, store, "pub", "ann", NULL, 1), GATEKIT_ENOTFOUND);  /* nothing in effect in 1970 */
    CHECK_RC(eula_should_present_at(&p, store, "pub", "ann", "de_AT", 0), GATEKIT_EINVAL);
    CHECK(strstr(gatekit_last_error(), "de_AT") != NULL);

    /* The export: JSON lines with the texts, then CSV; each verifies against the store. */
    sink lines = {0}, csv = {0};
    long long exported = -1;
    CHECK_RC(eula_export(&exported, store, "pub", "ann", GATEKIT_EULA_EXPORT_TEXTS, collect, &lines), GATEKIT_OK);
    CHECK(exported == 1 && lines.data && count(lines.data, "\n") == 4);  /* header, text, decision, end */
    if (lines.data) {
        CHECK(strstr(lines.data, "\"record\":\"text\"") < strstr(lines.data, "\"record\":\"decision\""));
        CHECK(strstr(lines.data, "\"language\":\"de\",\"version\":\"2026-11\",\"decision\":\"accepted\"") != NULL);
        CHECK(strstr(lines.data, "\"client_address\":\"198.51.100.4\"") != NULL);
        write_file(path_in("ann.jsonl"), lines.data, lines.length);
    }
    long long verified = -1;
    CHECK_RC(eula_verify_export(&verified, store, path_in("ann.jsonl")), GATEKIT_OK);
    CHECK(verified == 1);
    CHECK_RC(eula_export(NULL, store, NULL, NULL, GATEKIT_EULA_EXPORT_CSV | GATEKIT_EULA_EXPORT_EVERYONE, collect, &csv), GATEKIT_OK);
    if (csv.data) {
        CHECK(strncmp(csv.data, "record,id,document_id,user,", 27) == 0);
        write_file(path_in("all.csv"), csv.data, csv.length);
    }
    CHECK_RC(eula_verify_export(&verified, store, path_in("all.csv")), GATEKIT_OK);
    CHECK(verified > 1);
    /* One byte changed in the address: found, and named. */
    if (lines.data) {
        char *address = strstr(lines.data, "198.51.100.4");
        if (address) address[11] = '5';
        write_file(path_in("edited.jsonl"), lines.data, lines.length);
    }
    CHECK_RC(eula_verify_export(&verified, store, path_in("edited.jsonl")), GATEKIT_EEULA_EXPORT_ALTERED);
    CHECK(verified == 0 && strstr(gatekit_last_error(), "client_address") != NULL);
    CHECK_RC(eula_export(NULL, store, NULL, NULL, GATEKIT_EULA_EXPORT_EVERYONE, stop_writing, NULL), GATEKIT_EIO);
    CHECK_RC(eula_export(NULL, store, NULL, "ann", GATEKIT_EULA_EXPORT_EVERYONE, collect, &csv), GATEKIT_EINVAL);
    CHECK_RC(eula_export(NULL, store, NULL, NULL, 8, collect, &csv), GATEKIT_EINVAL);
    free(lines.data);
    free(csv.data);
}

static void test_invalid_arguments(gatekit_store *store) {
    char h[GATEKIT_HASH_HEX_SIZE];
    CHECK_RC(eula_hash_bytes(h, "x", 1), GATEKIT_OK);
    char *json = (char *)1;
    CHECK_RC(eula_should_present(NULL, "terms", path_in("EULA.txt"), NULL), GATEKIT_EINVAL);
    CHECK(strstr(gatekit_last_error(), "store is NULL") != NULL);
    CHECK_RC(eula_should_present(store, NULL, path_in("EULA.txt"), NULL), GATEKIT_EINVAL);
    CHECK_RC(eula_should_present(store, "terms", NULL, NULL), GATEKIT_EINVAL);
    CHECK_RC(eula_should_present_hash(store, "terms", NULL, NULL), GATEKIT_EINVAL);
    CHECK_RC(eula_should_present_hash(store, "", h, NULL), GATEKIT_EINVAL);
    CHECK_RC(eula_should_present_hash(store, "\xff\xfe", h, NULL), GATEKIT_EINVAL);  /* ids are UTF-8 */
    CHECK_RC(eula_accept(store, "terms", "ABCDEF", NULL), GATEKIT_EINVAL);
    CHECK(strstr(gatekit_last_error(), "64 hex digits") != NULL);
    /* Upper case is the same text (what some tools print): accepted, stored lower case. */
    CHECK_RC(eula_accept(store, "upper-case", "BA7816BF8F01CFEA414140DE5DAE2223B00361A396177A9CB410FF61F20015AD", NULL), GATEKIT_OK);
    CHECK_RC(eula_should_present_hash(store, "upper-case", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad", NULL), 0);
    CHECK_RC(eula_accept(store, "terms", "GA7816BF8F01CFEA414140DE5DAE2223B00361A396177A9CB410FF61F20015AD", NULL), GATEKIT_EINVAL);
    CHECK_RC(eula_accept(store, "terms", NULL, NULL), GATEKIT_EINVAL);
    CHECK_RC(eula_accept(NULL, "terms", h, NULL), GATEKIT_EINVAL);
    CHECK_RC(eula_accept(store, "terms", h, ""), GATEKIT_EINVAL);
    CHECK_RC(eula_decline(store, NULL, h, NULL), GATEKIT_EINVAL);
    CHECK_RC(eula_history(NULL, store, NULL, NULL), GATEKIT_EINVAL);
    CHECK_RC(eula_history(&json, NULL, NULL, NULL), GATEKIT_EINVAL);
    CHECK(json == NULL);  /* out is cleared on failure */
    CHECK_RC(eula_history_all(NULL, store, NULL), GATEKIT_EINVAL);
    CHECK_RC(eula_mark_minor_revision(store, "terms", h, NULL), GATEKIT_EINVAL);
    CHECK_RC(eula_mark_minor_revision(store, "terms", h, h), GATEKIT_EINVAL);
    char long_user[5000];
    memset(long_user, 'u', sizeof long_user - 1);
    long_user[sizeof long_user - 1] = 0;
    CHECK_RC(eula_accept(store, "terms", h, long_user), GATEKIT_EINVAL);
}

static void test_store_open(void) {
    gatekit_store *s = (gatekit_store *)1;
    CHECK_RC(gatekit_store_open(NULL, path_in("x.sqlite"), NULL), GATEKIT_EINVAL);
    CHECK_RC(gatekit_store_open(&s, folder, NULL), GATEKIT_EINVAL);  /* a folder */
    CHECK(s == NULL);
    CHECK_RC(gatekit_store_open(&s, path_in("y.sqlite"), "../escape"), GATEKIT_EINVAL);
    CHECK_RC(gatekit_store_open(&s, path_in("y.sqlite"), "a/b"), GATEKIT_EINVAL);

    /* A foreign file is refused and left byte-for-byte intact. */
    const char notes[] = "my notes, not a store";
    write_file(path_in("notes.txt"), notes, sizeof notes);
    CHECK_RC(gatekit_store_open(&s, path_in("notes.txt"), NULL), GATEKIT_ENOTSTORE);
    FILE *f = fopen(path_in("notes.txt"), "rb");
    char back[64] = {0};
    size_t n = f ? fread(back, 1, sizeof back, f) : 0;
    if (f) fclose(f);
    CHECK(n == sizeof notes && memcmp(back, notes, n) == 0);

    /* A parent that is a file. */
    CHECK_RC(gatekit_store_open(&s, path_in("notes.txt/store.sqlite"), NULL), GATEKIT_EIO);

    /* Default location: $GATEKIT_STORE, else $XDG_STATE_HOME/gatekit/<app_id>.sqlite. */
    unsetenv("GATEKIT_STORE");
    setenv("XDG_STATE_HOME", path_in("state"), 1);
    CHECK_RC(gatekit_store_open(&s, NULL, "com.example.app"), GATEKIT_OK);
    char expected[512];
    snprintf(expected, sizeof expected, "%s/state/gatekit/com.example.app.sqlite", folder);
    CHECK_STR(gatekit_store_path(s), expected);
    CHECK_RC(gatekit_store_check(s), GATEKIT_OK);
    gatekit_store_close(s);
    CHECK_RC(gatekit_store_open(&s, NULL, NULL), GATEKIT_EINVAL);  /* no app id, no path */
    setenv("GATEKIT_STORE", path_in("env.sqlite"), 1);
    CHECK_RC(gatekit_store_open(&s, NULL, NULL), GATEKIT_OK);
    CHECK_STR(gatekit_store_path(s), path_in("env.sqlite"));
    gatekit_store_close(s);
    unsetenv("GATEKIT_STORE");
    CHECK(gatekit_store_path(NULL) == NULL);
    CHECK_RC(gatekit_store_check(NULL), GATEKIT_EINVAL);
    gatekit_store_close(NULL);
}

int main(void) {
    if (!mkdtemp(folder)) { perror("mkdtemp"); return 2; }
    chmod(folder, 0711);  /* traversable, so the unreadable-file check fails on the file itself */
    test_version_and_errors();
    test_hashing();
    if (check_on_postgres()) printf("backend: PostgreSQL (the file-path tests of gatekit_store_open ran on SQLite)\n");
    else test_store_open();

    gatekit_store *store = NULL;
    CHECK_RC(check_store_open(&store, path_in("eula.sqlite")), GATEKIT_OK);
    if (store) {
        test_large_document(store);
        test_gating(store);
        test_users_and_history(store);
        test_consent_and_withdrawal(store);
        test_publication_and_export(store);
        test_invalid_arguments(store);
        gatekit_store_close(store);
    }
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", folder);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", folder);
    return check_report("test_eula");
}
