"""Twenty-first round (issue 33): the twentieth round's closing list, the look-alikes main's redactor destroyed in real
code (the project virtualenv's site-packages), and a pair in a list from thoughtworks/talisman (development from this
round; github/codeql's hard-coded credentials tests are held out and no case here comes from them). Found: a secret's
name and a generated value as two strings in a list (`["password", "…"]`, `"password" ,"…"`). Kept, each with its secret
twin still redacted: two names in a tuple or a call (`("client_secret_post", "client_secret_basic")`), a Literal's
members, a value of signs and at most four letters or digits under a token's name (`".."`, `"done."`, `"v1."`, `"-1"`),
a regex of character classes, a docstring's `token: str:`, a concatenation's head ending in a blank, a pygments style, a
signature's quoted annotation, a file's name under a file's name. Values are made up here."""

from tests.chunkers.redact_asserts import GENERATED, pair_test, round_tests

LEET = "Wq7!zP3#kL9mN2xR"

# (look-alike, its secret twin, the twin's secret): the twin is the same line with a secret in the value's place
PAIRS = [
    ('    _AUTH_METHODS = ("client_secret_post", "client_secret_basic")',
     f'    _AUTH_METHODS = ("client_secret_post", "{GENERATED}")', GENERATED),
    ("    @field_serializer('password', 'password_bytes', when_used='json')",
     f"    @field_serializer('password', '{LEET}', when_used='json')", LEET),
    ("    ('inputsecret','inputsecret'),", f"    ('inputsecret','{GENERATED}'),", GENERATED),
    ('    ("qwen2_5_omni_token2wav", "qwen2_5_omni"),', f'    ("qwen2_5_omni_token2wav", "{GENERATED}"),', GENERATED),
    ('    WeightRenaming("patch_generator.cls_token.token", "embeddings.cls_register_token"),',
     f'    WeightRenaming("patch_generator.cls_token.token", "{GENERATED}"),', GENERATED),
    ('    auth_method: Literal["client_secret_basic", "client_secret_post"] = "client_secret_basic",',
     f'    auth_method: Literal["client_secret_basic", "client_secret_post"] = "{GENERATED}",', GENERATED),
    ('    split_token = ".."', f'    split_token = "{GENERATED}"', GENERATED),
    ('    DONE_TOKEN = "done."', f'    DONE_TOKEN = "{GENERATED}"', GENERATED),
    ('_TOKEN_PREFIX = "v1."', f'_TOKEN_PREFIX = "{GENERATED}"', GENERATED),
    ('        unk_token="-1",', f'        unk_token="{GENERATED}",', GENERATED),
    ("""    token = r"[-!#$%&'*+.^_`|~0-9a-zA-Z]+\"""", f'    token = r"{GENERATED}"', GENERATED),
    ("        token: str:", f"        token: {GENERATED}", GENERATED),
    ('    tokenText = "<missing " + str(name) + ">"', f'    tokenText = "{GENERATED}" + str(name) + ">"', GENERATED),
    ('        Token.Comment: "italic #A3AAB2",', f'        Token.Comment: "{GENERATED}",', GENERATED),
    ('def format_secrets(secrets: "DgApiSecretList", as_json: bool) -> str:',
     f'def format_secrets(secrets: "{GENERATED}", as_json: bool) -> str:', GENERATED),
    ('    TIKTOKEN_VOCAB_FILE = "tokenizer.model"', f'    TIKTOKEN_VOCAB_FILE = "{GENERATED}"', GENERATED),
    ('    "password" ,"randomStringGoesHere"', f'    "password" ,"{GENERATED}"', GENERATED),
]

KEPT = [
    # two names, a name list
    "    SENSITIVE = ['password', 'api_token', 'client_secret']",
    '    ("cls_token", "embeddings.cls_token")',
    # short values of signs under a token's name
    "    typeform_token = 'tfp_1'",
    "        token: id:",
    # a style, a regex
    '        Token.Keyword: "bold #0000ff",',
    '    TOKEN_RE = r"^[A-Za-z0-9]+$"',
]

REDACTED_CASES = [
    # a password's name keeps even a short value of signs
    ('    password = "ab1!"', "ab1!"),
    # a generated value before a blank and a concatenation; a password in words before one
    (f'    tokenText = "{GENERATED} " + kind', GENERATED),
    ('    password = "9fK2 xQ7! " + suffix', "9fK2 xQ7!"),
    # a value sharing a name's word with a generated part; a name's words with a generated tail
    ('    ("client_secret", "client_9fk2xq7plm")', "client_9fk2xq7plm"),
    # a capitalised password given by name to a call (no type's word at its end)
    ('    login(user, password: "HunterTwo")', "HunterTwo"),
    # a pair in a list
    (f'    x = ["token", "{GENERATED}"]', GENERATED),
    # a style's word before a generated value; a file's name with a generated part
    (f'        Token.Secret: "italic {GENERATED}",', GENERATED),
    (f'    TIKTOKEN_VOCAB_FILE = "tokenizer.{GENERATED}"', GENERATED),
]

test_a_look_alike_is_kept_and_its_twin_redacted = pair_test(PAIRS)
test_a_look_alike_is_kept, test_a_secret_is_redacted = round_tests(KEPT, REDACTED_CASES)
