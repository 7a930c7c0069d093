"""Twentieth round (issue 33): the nineteenth round's closing list from Checkmarx/2ms (development from this round;
thoughtworks/talisman is held out and no case here comes from it), and the look-alikes main's redactor destroyed in
real code (the project virtualenv's site-packages). A secret's name with a non-word sign glued to its end (`let
apikey€ = "…"`) is read as the name. Kept, each with its secret twin still redacted: a string prefix with an empty
literal or a triple-quoted string's opening (`token = b''`, `token_end = r'''`), one character written as an escape
(`"\\u3299"`), a type's name where a schema or an annotation gives a field's type (`"password": "string?"`,
`"torch.Tensor | None"`), a value holding its own name's words (`"tiktoken": "tiktoken"`, `"refresh_token":
"hf_oauth__refresh_token"`), a tokenizer's special token after sentencepiece's word mark (`"▁<PRE>"`), a prose word
after a flag before a string's escaped line end (`--api-token parameter\\n`). Values are made up here."""

from tests.chunkers.redact_asserts import GENERATED, pair_test, round_tests

LEET = "Wq7!zP3#kL9mN2xR"
JWT_HEAD = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9"

# (look-alike, its secret twin, the twin's secret): the twin is the same line with a secret in the value's place
PAIRS = [
    ('let apikey€ = "${API_KEY}"', f'let apikey€ = "{JWT_HEAD}"', JWT_HEAD),
    ("        self.token = b''", f"        self.token = b'{GENERATED}'", GENERATED),
    ("    token_end = r'''", f"    token_end = r'''{GENERATED}'''", GENERATED),
    ('    "/ideographicsecretcircle": "\\u3299",', f'    "/ideographicsecretcircle": "{GENERATED}",', GENERATED),
    ('_CONTROL_TOKEN_START = "\\U000f0000"', f'_CONTROL_TOKEN_START = "{GENERATED}"', GENERATED),
    ('            "password": "string?",', f'            "password": "{LEET}",', LEET),
    ('            "credentials": "boolean?",', f'            "credentials": "{LEET}",', LEET),
    ('    _pad_token_tensor: "torch.Tensor | None"', f'    _pad_token_tensor: "{GENERATED}"', GENERATED),
    ('    "tiktoken": "tiktoken",', f'    "tiktoken": "{GENERATED}",', GENERATED),
    ('        "refresh_token": "hf_oauth__refresh_token",', f'        "refresh_token": "hf_oauth_{GENERATED}",',
     GENERATED),
    ('        prefix_token="▁<PRE>",', f'        prefix_token="▁{GENERATED}",', GENERATED),
    ('    "- Providing the --api-token parameter\\n"', f'    "- Providing the --api-token {GENERATED}\\n"', GENERATED),
]

KEPT = [
    # a string prefix and an empty literal, a triple-quoted string's opening
    '    ForTokenClassification = r"""',
    "        api_key = b''",
    # one escaped character
    '_CONTROL_TOKEN_END = "\\U000f0001"',
    # a schema's types, a string annotation
    '            "passphrase": "string?",',
    '            "privateKey": "string",',
    '    _eos_token_tensor: "torch.Tensor | None"',
    # a value holding its name's words: a name mapped to itself, a module path, a class's name
    '    "pooling_mode_lasttoken": "lasttoken",',
    '    "TokenClassificationPipeline": "transformers.pipelines.token_classification",',
    '    "token_classification_class": "ForTokenClassification",',
    '            self._dep_token.node.name = "dep_token0"',
    '    private_key_sign_fn: "CustomPrivateKeySign",',
    # special tokens after sentencepiece's mark
    '        suffix_token="▁<SUF>",',
]

REDACTED_CASES = [
    (f'let apikey€ = "{JWT_HEAD}"', JWT_HEAD),
    (f'const token© = "{GENERATED}";', GENERATED),
    # a key written in escapes: many characters, a value
    ('SECRET_KEY = "\\x8f\\x1a\\x9c\\x11\\x7e\\x3b\\x5d\\x2a\\x90\\xfe\\x01\\xab\\xcd\\x42\\x77\\x19"', "\\x8f\\x1a"),
    # a password that starts like a type's name
    ('            "password": "strings4life",', "strings4life"),
    # a value holding its name's word and a generated tail; a password's name keeps a value holding its own word
    (f'        api_token = "api_token_{GENERATED}",', GENERATED),
    ('    db_password = "dbpassword1"', "dbpassword1"),
    # a token that names its kind, with a fixture's generated part (this repository's secrets corpus)
    ("ARG NPM_TOKEN=npm_FakeNpmToken0041Xy9", "npm_FakeNpmToken0041Xy9"),
]

test_a_look_alike_is_kept_and_its_twin_redacted = pair_test(PAIRS)
test_a_look_alike_is_kept, test_a_secret_is_redacted = round_tests(KEPT, REDACTED_CASES)
