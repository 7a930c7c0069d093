"""Ninth round (issue 33): microsoft/security-utilities' misses (a development corpus now), fixed by rows of
provider forms. Each fix has a case that fails without it and a look-alike beside it. Values are made up here."""
from tests.chunkers.redact_asserts import round_tests

NUGET_UPPER = "OY2SFPO7M2CP535ZT43RSRC243RNRSQE5SIG46I4KKJN57"
SIG = "kkxn3ew64zMv4UjbENUXxq9W2QeMR1SLyM4wAM4/bnX%3d"
# header `{\n "alg": "HS256"\n}` (JSON laid out over lines), claims `{"sub":"FakeUser123","iat":1}`, a made-up signature
JWT_SPACED = ("ewogImFsZyI6ICJIUzI1NiIKfQ.eyJzdWIiOiJGYWtlVXNlcjEyMyIsImlhdCI6MX0."
              "f9oLdliXb1SkEPww_kt1FUGwD1WohdU88FtgGf2so84")

KEPT = [
    # NuGet in capitals: no digit (a constant's name), mixed case (no key of the form), one character short
    "OY2ABCDEFGHIJKLMNOPQRSTUVWXYZABCDEFGHIJKLMNOPQ",
    "OY2abcdefghij7FKNLFIDHIA4XHLKIFMZDV32OHDT25FYG",
    NUGET_UPPER[:-1],
    # a bare `sig=`: without the base64 pad, glued to a word, too short, a call
    "sig=kkxn3ew64zMv4UjbENUXxq9W2QeMR1SLyM4wAM4/bnX",
    "mysig=" + SIG,
    "sig=abc%3D",
    "sig=computeTheRequestSignatureForTheUploadedBlob(request)",
    # `ew…`: base64 JSON with no claims after it (a docker config), words, a header with padding (no JWT)
    "ewogICJhdXRocyI6IHsKICAgICJyZWdpc3RyeSI6IHt9CiAgfQp9",
    "ewallet_settings_loader.eyJhbGciOiJIUzI1NiJ9",
    "ewallet_integration_setup.eyeglasses_component_settings.",
    # fillers stay placeholders, in these forms too
    "oy2" + "z" * 43,
    "yyy7Q~" + "y" * 31,
]

REDACTED_CASES = [
    # (text, the secret that must go)
    (NUGET_UPPER, NUGET_UPPER),
    (f'NUGET = "{NUGET_UPPER}"', NUGET_UPPER),
    (f"dotnet nuget push pkg.nupkg -k {NUGET_UPPER}", NUGET_UPPER),
    ("sig=" + SIG, SIG),
    ('SAS="sig=kkxn3ew64zMv4UjbENUXxq9W2QeMR1SLyM4wAM4%2FbnXq%3D"', "kkxn3ew64zMv4UjbENUXxq9W2QeMR1SLyM4wAM4%2FbnXq"),
    ("  sig=kkxn3ew64zMv4UjbENUXxq9W2QeMR1SLyM4wAM4+bnX=", "kkxn3ew64zMv4UjbENUXxq9W2QeMR1SLyM4wAM4+bnX"),
    (JWT_SPACED, JWT_SPACED),
    (f'value = "{JWT_SPACED}"', "f9oLdliXb1SkEPww_kt1FUGwD1WohdU88FtgGf2so84"),
    # `{\r\n` and `{\t"`
    ("ew0KICJhbGciOiAiSFMyNTYiDQp9.eyJzdWIiOiJGYWtlVXNlcjEyMyIsImlhdCI6MX0.f9oLdliXb1SkEPww_kt1FUGwD1WohdU88FtgGf2so84",
     "eyJzdWIiOiJGYWtlVXNlcjEyMyIsImlhdCI6MX0"),
    ("ewkiYWxnIjoiSFMyNTYifQ.eyJzdWIiOiJGYWtlVXNlcjEyMyIsImlhdCI6MX0.f9oLdliXb1SkEPww_kt1FUGwD1WohdU88FtgGf2so84",
     "eyJzdWIiOiJGYWtlVXNlcjEyMyIsImlhdCI6MX0"),
]


test_a_look_alike_is_kept, test_a_secret_is_redacted = round_tests(KEPT, REDACTED_CASES)
