"""Twenty-sixth round (issue 33): the development corpora's misses (trufflehog's detector tests, Nosey Parker's,
bearer's, earlybird's); newrelic/rusty-hog's unit tests and deepfence/SecretScanner's test/keys.txt are held out and
no case here comes from them. Found: a password given by position to JDBC's `DriverManager.getConnection(url, user,
password)`, Tableau's personal access token secret (`…==:…`), Duo's secret key under `duo_skey`, a key in a uuid's
form under a provider's bare name (`postmark: "…"`, `heroku = "…"`), the secret key answered to `aws configure`'s
prompt in a transcript. Kept, each with its secret twin still redacted: a variable or a placeholder given to
getConnection, a base64 and hex digest pair, Duo's integration key (an id), a uuid under an id's name, a version under
a provider's name, a prompt left unanswered. Values are made up here."""

from tests.chunkers.redact_asserts import GENERATED, pair_test, round_tests

DUO = (GENERATED * 2)[:40]  # 40 letters and digits
UUID = "7c9e6679-7425-40de-944b-e07fc1f90ae7"
B64 = "q3ZvX1mB9kR2tLp8wN4cYa"  # 22 base64 characters: 16 bytes less its `==`

# (look-alike, its secret twin, the twin's secret): the twin is the same line with a secret in the value's place
PAIRS = [
    # newly found: JDBC's password by position, after the user's literal
    ('Connection c = DriverManager.getConnection(url, "app", dbPassword);',
     f'Connection c = DriverManager.getConnection(url, "app", "{GENERATED}");', GENERATED),
    ('conn = DriverManager.getConnection(DB_URL, "root", "${DB_PASSWORD}");',
     'conn = DriverManager.getConnection(DB_URL, "root", "Tr4in-Ledger-91");', "Tr4in-Ledger-91"),
    # newly found: Tableau's token secret (a digest pair, hex of one case after `==:`, is kept)
    (f"{B64}==:9e107d9d372bb6826bd81d3542a419d6", f"{B64}==:{GENERATED[:23]}Hk3Pq9Zr7", f"{GENERATED[:23]}Hk3Pq9Zr7"),
    # newly found: Duo's secret key (the integration key is an id; a placeholder is kept)
    ('duo_ikey = "DIWJ8X6AEYOR5OMC6TQ1"', f'duo_skey = "{DUO}"', DUO),
    ("[config] DUO_SKEY=xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", f"[config] DUO_SKEY={DUO}", DUO),
    # newly found: a uuid under a provider's bare name
    (f'heroku_app_id: "{UUID}"', f'heroku: "{UUID}"', UUID),
    ('"postmark": "^3.0.19",', f'"postmark": "{UUID}",', UUID),
    ('postmark = "00000000-0000-0000-0000-000000000000"', f'postmark = "{UUID}"', UUID),
    # newly found: the secret key answered to `aws configure`'s prompt
    ("AWS Secret Access Key [None]: ", f"AWS Secret Access Key [None]: {DUO}", DUO),
]

KEPT = [
    "Connection c = DriverManager.getConnection(url, user, pass);",
    'DriverManager.getConnection(url, "sa", "")',
    "duo_skey = os.environ['DUO_SKEY']",
    f"heroku_team_id = '{UUID}'",
    "AWS Secret Access Key [****************Ab12]:",
]

REDACTED_CASES = [
    ('try (Connection c = DriverManager.getConnection("jdbc:postgresql://db/app", "ledger", "pX9!rT2qLm")) {',
     "pX9!rT2qLm"),
    (f"tableau pat 'ci-token' {B64}==:Kq2Vx8Zp3Lm9Rt4Wn7Yb1Hc6Jd5Fg0Ss", f"{B64}==:Kq2Vx8Zp3Lm9Rt4Wn7Yb1Hc6Jd5Fg0Ss"),
    (f'  "duo_skey": "{DUO}",', DUO),
    (f"HEROKU={UUID}", UUID),
    (f"AWS Secret Access Key [****************Ab12]: {DUO}", DUO),
]

test_a_look_alike_is_kept_and_its_twin_redacted = pair_test(PAIRS)
test_a_look_alike_is_kept, test_a_secret_is_redacted = round_tests(KEPT, REDACTED_CASES)
