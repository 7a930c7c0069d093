"""Eleventh round (issue 33): SonarSource's sonar-python and sonar-java checks (development corpora now). Their
look-alikes that the redactor destroyed are kept: a bind parameter, a concatenation read as a value, a property's
name, a path, a secret store's reference, a name with a comment after it, an IPv6 address, a dotted number or
constant, a phrase with numbers, `key` inside another word, an attribute selector, an empty pair. Their secrets
missed are found: a type annotation before `=`, a multiple assignment with other values, a call's first argument a
constant in capitals. Each look-alike has a secret twin that stays redacted. Values are made up here."""

from tests.chunkers.redact_asserts import GENERATED, pair_test, round_tests

PUNCT = "7Hq$zP2-mW9~vK4.xL8="

# (look-alike, its secret twin, the twin's secret): the twin is the same line with a secret in the value's place
PAIRS = [
    # a bind parameter named for the secret: SQL's `:name`, `@name`
    ('query = "&password=:password"', f'query = "&password={GENERATED}"', GENERATED),
    ('String q = "secret=:password";', f'String q = "secret={GENERATED}";', GENERATED),
    ('q = "password=@pwd"', f'q = "password={GENERATED}"', GENERATED),
    ('conn = "Server=db;Database=app;Password=:myPassword;"', f'conn = "Server=db;Database=app;Password={GENERATED};"',
     GENERATED),
    # a concatenation: the end of one string and the operator read as the value
    ('q = "&password=\'"+pwd+"\'"', f'q = "&password=\'{GENERATED}\'"', GENERATED),
    ('String q = "secret=\'" + secret + "\'";', f'String q = "secret=\'{GENERATED}\'";', GENERATED),
    # a property's name in camel case, three words or more, the last a secret's
    ('final String TRUSTSTORE_PASSWORD = "trustStorePassword";', f'final String TRUSTSTORE_PASSWORD = "{GENERATED}";',
     GENERATED),
    ('TRUSTSTORE_SECRET = "trustStoreSecret"', f'TRUSTSTORE_SECRET = "{GENERATED}"', GENERATED),
    # a path of camel-case words, a repository's path to a commit, a secret store's reference
    ('RESET_PASSWORD = "/users/resetUserPassword"', f'RESET_PASSWORD = "/users/{GENERATED}"', GENERATED),
    ('String secret002 = "examples/commit/16ad89c4172c259f15bce56e";', f'String secret002 = "{GENERATED}";', GENERATED),
    ('password = "op://vault/secret"', f'password = "{PUNCT}"', PUNCT),
    ('password = "op://Private/db/password"', f'password = "{PUNCT}"', PUNCT),
    # a name as the value, a comment after it
    ('current_app.secret_key = secret  # Compliant', f'current_app.secret_key = {GENERATED}', GENERATED),
    # an IPv6 address, a dotted number, a constant's dotted name
    ('String ip_secret1 = "bfee:e3e1:9a92:6617:02d5:256a:b87a:fbcc";', f'String ip_secret1 = "{PUNCT}";', PUNCT),
    ('String ip_secret2 = "2001:db8:1::ab9:C0A8:102";', f'String ip_secret2 = "{PUNCT}";', PUNCT),
    ('String ip_secret3 = "::ab9:C0A8:102";', f'String ip_secret3 = "{PUNCT}";', PUNCT),
    ('String secret013 = "234.167.076";', f'String secret013 = "{PUNCT}";', PUNCT),
    ('String secret015 = "org.apache.tomcat.util.buf.UDecoder.ALLOW_ENCODED_SLASH";', f'String secret015 = "{PUNCT}";',
     PUNCT),
    # a phrase with numbers in it
    ('String okApiKeyValue = "Spaces are UNEXPECTED 012 345 678";', f'String okApiKeyValue = "{PUNCT}";', PUNCT),
    # `api-key` read across two words (`okapi-keyboard`), the name's only secret word
    ('x = myA.setProperty("okapi-keyboard", "bacdefghijklmnopqrs");',
     f'x = myA.setProperty("okapi-key", "{GENERATED}");', GENERATED),
    # a CSS attribute selector
    ('final String SECRET_INPUT = "[id=\'secret\']";', f'final String SECRET_INPUT = "{PUNCT}";', PUNCT),
    # an empty pair, the next pair read as its value
    ('String variableB = "secret=&login=bacdefghijklmnopqrs";', f'String variableB = "secret={GENERATED}&login=bob";',
     GENERATED),
]

KEPT = [
    # the fixes' limits: a type annotation with no literal, a multiple assignment without one, a comment's pair
    "password: Optional[str] = None",
    "x: int = 5",
    "a, b = 1, 2  # a comment",
    # a tokenizer's special tokens, annotated (a bracketed word: kept under any name)
    'pad_token: Optional[str] = "[PAD]",',
    'cls_token: str = "[CLS]",',
    'def __init__(self, unk_token="[GO]", eos_token="[s]"):',
    # a multiple assignment with a name among its values: `key` alone holds no secret, as in `key = "…"`
    'key, estimator = "best_estimator_", self.best_estimator_',
]

REDACTED_CASES = [
    # a type annotation between the name and `=`
    (f'secret: str = "{PUNCT}"  # Noncompliant', PUNCT),
    (f"const token: string = '{GENERATED}'", GENERATED),
    (f'api_key: Optional[str] = "{GENERATED}"', GENERATED),
    # a multiple assignment with numbers and names among the values, a comment after it
    (f'nothing, secret, nothing_else = 1, "{PUNCT}", 2  # Noncompliant', PUNCT),
    (f'a, password = None, "{GENERATED}"', GENERATED),
    # a call's first argument a constant in capitals
    (f'x = 1\nprops.put(Context.SECURITY_CREDENTIALS, "xvxf6_gaa"); // Noncompliant', "xvxf6_gaa"),
    (f'env.put(DB_PASSWORD, "{GENERATED}");', GENERATED),
    # `keyboard` beside a secret's name: the secret's name counts
    (f'keyboard_password = "{GENERATED}"', GENERATED),
    # a bind parameter not named for the secret is a value still (Sonar's password check calls it one)
    ('String query3 = "password=:param";', ":param"),
]


test_a_look_alike_is_kept_and_its_twin_redacted = pair_test(PAIRS)


test_a_look_alike_is_kept, test_a_secret_is_redacted = round_tests(KEPT, REDACTED_CASES)
