"""Seventeenth round (issue 33): the sixteenth round's closing list from GitGuardian/ggshield (development from this
round; bridgecrewio/checkov is held out and no case here comes from it). Secrets missed are found: a unified diff's
line prefix glued to the name (`+password=…`, `-github_token: …`, `+FacebookAppSecret = …`: a patch's added or
removed line, as ggshield, pre-commit hooks and code review show it), and an unquoted value ended by `;` on a line
of nothing but `name = value;` statements (`FacebookAppSecret = ce3f…;`, also after another statement), the value
generated-looking with a digit. Code's statements are kept: a bare word, a member, `null`, a word and digits after
a secret's name is a name, not a value (`password = other_password;`). A look-alike of real code is kept: a CSS hex
colour under a token's or a key's name (pygments' `Token: "#d8dee9"`, a design token), with its secret twin still
redacted, and still redacted under a password's or a secret's name. Values are made up here."""

from tests.chunkers.redact_asserts import GENERATED, pair_test, round_tests

HEX = "9c2e7f41b08d3a65e1f7c94d20ab58e3"

# (look-alike, its secret twin, the twin's secret): the twin is the same line with a secret in the value's place
PAIRS = [
    ('    Token:                      "#d8dee9",', f'    Token:                      "{GENERATED}",', GENERATED),
    ('design_token: "#FFAA00"', f'design_token: "{GENERATED}"', GENERATED),
    ("api_key = '#1e1e1e80'", f"api_key = '{GENERATED}'", GENERATED),
]

KEPT = [
    # a diff's prefix changes nothing about what a value is: code and placeholders stay
    "+password = input()",
    "-password = input()",
    "+    api_key = self.api_key",
    # `;`-ended statements whose value is a name, a member, a literal word, a word and digits, or a number
    "password = other_password;",
    "token = cfg.token;",
    "apiKey = process.env.API_KEY;",
    "token = null;",
    "password = password123;",
    "secretKey = SecretKey2048Bits;",
    "int secret = 12345678901234;",
    # a generated value under no secret's name
    f"sessionId = {HEX};",
    # a `+` before a line that is no pair
    "+ password",
]

REDACTED_CASES = [
    (f"+password={HEX}", HEX),
    (f"+github_token: {HEX}", HEX),
    (f"-github_token: {HEX}", HEX),
    (f"+client_secret: {GENERATED}", GENERATED),
    (f"+FacebookAppSecret = {HEX}", HEX),
    (f"+    DB_PASSWORD={GENERATED}", GENERATED),
    (f"FacebookAppSecret = {HEX};", HEX),
    (f"+FacebookAppSecret = {HEX};", HEX),
    (f"FacebookAppId = 1234567890123; FacebookAppSecret = {HEX};", HEX),
    (f"    private_key = {GENERATED};", GENERATED),
    # the colour's limit: under a password's or a secret's name a colour's look is still a value
    ('password: "#d8dee9"', "#d8dee9"),
    ('client_secret = "#d8dee9"', "#d8dee9"),
]

test_a_look_alike_is_kept_and_its_twin_redacted = pair_test(PAIRS)
test_a_look_alike_is_kept, test_a_secret_is_redacted = round_tests(KEPT, REDACTED_CASES)
