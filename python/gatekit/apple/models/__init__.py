"""``appstoreserverlibrary.models`` at Apple's path: one module per model, named as Apple names
it (``from gatekit.apple.models.Environment import Environment``). The models Apple has and
GateKit does not yet are listed in docs/appstore.md."""
