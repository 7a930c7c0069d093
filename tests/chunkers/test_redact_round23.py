"""Twenty-third round (issue 33): bearer/bearer-rules' tests (development from this round; Checkmarx/kics' tests are
held out and no case here comes from them), talisman's quoted pair alone on its line and 2ms' key whose value stands
on the next line. Found: a key given to Node's `createSecretKey` / `createPrivateKey` as its first argument, a quoted
pair in a list on a line with no other sign (`"pwd" ,"…"`), a secret's name ending its line and its quoted value
alone on the next one, a generated literal through an encoding's call (`TextCodec.BASE64.encode("…")`), a numbered
`pass` (`pass2`), a password spelt one character at a time (`{ 's', 'e', … }`). Kept, each with its secret twin still
redacted: a URL's credentials that are a format's holes (`%s`, `%(pw)s`, `{}`), a `Passwordless` gem's setting. Values
are made up here."""

from tests.chunkers.redact_asserts import GENERATED, pair_test, round_tests

# (look-alike, its secret twin, the twin's secret): the twin is the same line with a secret in the value's place
PAIRS = [
    # newly kept: a format's holes as a URL's credentials
    ('    dsn := fmt.Sprintf("postgres://%s:%s@localhost/%s", dbUser, dbPassword, dbName)',
     f'    dsn := "postgres://app:{GENERATED}@localhost/app"', GENERATED),
    ('    u = "mysql://%(user)s:%(pw)s@db/app" % cfg', f'    u = "mysql://app:{GENERATED}@db/app" % cfg', GENERATED),
    ('    url = "redis://{}:{}@cache:6379".format(user, pw)', f'    url = "redis://app:{GENERATED}@cache:6379"',
     GENERATED),
    # newly kept: a login without a password (Ruby's Passwordless gem)
    ('Passwordless.default_from_address = "someone@example.com"', f'Passwordless.api_secret = "{GENERATED}"',
     GENERATED),
    # newly found: a key given to Node's crypto by position
    ("    const k = crypto.createSecretKey(Buffer.from(key, 'hex'));",
     "    const k = crypto.createSecretKey('pl0qW8rTz3nVx', 'utf-8');", "pl0qW8rTz3nVx"),
    ("    crypto.createSecretKey('mytoken')", f"    crypto.createSecretKey('{GENERATED}')", GENERATED),
    ("    const pk = crypto.createPrivateKey(fs.readFileSync('./keys/private.pem'));",
     f"    const pk = crypto.createPrivateKey('{GENERATED}');", GENERATED),
    # newly found: a quoted pair in a list, alone on its line
    ('  "pwd" ,"randomStringGoesHere"', f'  "pwd" ,"{GENERATED}"', GENERATED),
    ('["token", "api_key"]', f'["token", "{GENERATED}"]', GENERATED),
    # newly found: the value on the next line
    ("SecretKey: \n    'my-secret-key-name',", f"SecretKey: \n    '{GENERATED}',", GENERATED),
    (f"Title: \n    '{GENERATED}',", f"SecretKey: \n    '{GENERATED}',", GENERATED),
    # newly found: a generated literal through an encoding's call
    ('    public static final String JWT_PASSWORD = TextCodec.BASE64.encode("my-placeholder-secret");',
     f'    public static final String JWT_PASSWORD = TextCodec.BASE64.encode("{GENERATED}");', GENERATED),
    ('    secret_name = base64.b64encode("' + GENERATED + '")',
     f'    secret = base64.b64encode("{GENERATED}")', GENERATED),
    # newly found: a numbered `pass`
    ('    pass2 = "second-pass"', '    final String pass2 = "Xq7#mK;v2!Rt,9b";', "Xq7#mK;v2!Rt,9b"),
    (f'    bypass2 = "{GENERATED}"', f'    String pass2 = "{GENERATED}";', GENERATED),
    # newly found: a password spelt one character at a time
    ("    char[] secret = { 's', 'e', 'c', 'r', 'e', 't' };",
     "    char[] secret = { 'x', '9', 'K', 'f', '2', 'm', 'Q', '7', 'p' };", "'x', '9', 'K'"),
]

KEPT = [
    # an encoding's call of a variable, a word-only key of Node's crypto, a char table under no secret's name
    '    token = value.encode("utf-8")',
    "    crypto.createSecretKey('mysecret')",
    "    char[] HEX = { '0', '1', '2', 'a', 'b' };",
    # a list of names or words stays
    '    String[] SECRETS = {"secret", "admin"};',
    # a path-like value under a `_pass` name, a phrase under a numbered pass (an account's pass name, `db_pass`, is a
    # password's since the fifty-fifth round, where such a value is redacted as under `password`)
    '    build_pass = "Some.Path/File12"',
    '    PASS1 = "compile all"',
]

REDACTED_CASES = [
    # a password spelt one character at a time, a word with a digit as `password = "secret5"` is
    ("    private static final char[] password = { 's', 'e', 'c', 'r', 'e', 't', '5' };", "'t', '5'"),
    ("    char[] password = new char[] { 'x', '9', 'K', 'f', '2', 'm', 'Q', '7' };", "'Q', '7'"),
    # a password's name with its value on the next line
    (f'password =\n  "{GENERATED}"', GENERATED),
    # a URL's password beside a format's hole for its user
    ('    url = "postgres://%s:hunter2pass@localhost/db"', "hunter2pass"),
]

test_a_look_alike_is_kept_and_its_twin_redacted = pair_test(PAIRS)
test_a_look_alike_is_kept, test_a_secret_is_redacted = round_tests(KEPT, REDACTED_CASES)
