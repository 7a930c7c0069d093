"""Sixteenth round (issue 33): the fifteenth round's closing list from americanexpress/earlybird (development from this
round; GitGuardian/ggshield is held out and no case here comes from it). Secrets missed are found: a Swift optional or
implicitly unwrapped type between the name and `=` (`let password: String! = "…"`), a spaced ini line's word with
three digits or more (`password = fall123`, as `password=fall123` was already), a misspelt or cut-short name
(`passwrd`, `pword` as a word of its own). Look-alikes that were redacted are kept: a value repeating its own
two-word name with a word or two before it (`client_secret: grafana-client-secret`), the Fetch API's credentials
modes (`credentials: 'include'`), a property's dotted key naming a secret's word (`'e2.api.client.secret.key'`), a
file's path with an extension (`/foo/bar/Password.js`). Each look-alike has a secret twin that stays redacted. Values
are made up here."""

from tests.chunkers.redact_asserts import GENERATED, pair_test, round_tests

PASSWORD = "h7Kp!x2Wq9Lm"

# (look-alike, its secret twin, the twin's secret): the twin is the same line with a secret in the value's place
PAIRS = [
    # a value made of its own two-word name's words and one or two more
    ("client_secret: loki-client-secret", f"client_secret: {GENERATED}", GENERATED),
    ("  api_token: my-api-token", f"  api_token: {GENERATED}", GENERATED),
    ('AUTH_TOKEN = "default_auth_token"', f'AUTH_TOKEN = "{GENERATED}"', GENERATED),
    # the Fetch API's credentials modes
    ("  credentials: 'include',", f"  credentials: '{PASSWORD}',", PASSWORD),
    ('fetch(url, { "credentials": "same-origin" })', f'fetch(url, {{ "credentials": "{PASSWORD}" }})', PASSWORD),
    ("credentials=omit", f"credentials={PASSWORD}", PASSWORD),
    # a property's dotted key that names a secret's word
    ("db_password_key: 'app1.db.prod.password'", f"db_password_key: '{PASSWORD}'", PASSWORD),
    # a file's path with an extension
    ("client.auth.Password: /etc/app/Password.txt", f"client.auth.Password: {PASSWORD}", PASSWORD),
    ('password: "./conf/db/Password.cfg"', f'password: "{GENERATED}"', GENERATED),
]

KEPT = [
    # the limits: a value repeating a one-word name is a value (round 1's `ini-plain-password`), a spaced ini line's
    # name with a digit or two is code, a word ending in `pword` is no password's name, a mode under another name,
    # a file's path of random pieces is a value
    "password = arg1",
    "stopwords = 'Zq8vN3xL0pR7'",
    "opword: Zq8vN3xL0pR7tY2w",
    "mode: 'same-origin'",
]

REDACTED_CASES = [
    (f'let password: String! = "{PASSWORD}"', PASSWORD),
    (f'var apiKey: String? = "{GENERATED}"', GENERATED),
    ("password = fall123", "fall123"),
    ("db_password = winter2024", "winter2024"),
    (f"passwrd = '{PASSWORD}'", PASSWORD),
    (f"PASSWRD={PASSWORD}", PASSWORD),
    (f'db_pword = "{PASSWORD}"', PASSWORD),
    (f"pword: {PASSWORD}", PASSWORD),
    # the limits' other side: a one-word name repeated with words before it, a mode's look under a password's name,
    # a path whose pieces look generated
    ("password = ini-other-password", "ini-other-password"),
    ("password: include1234", "include1234"),
    ("password: /x/Zq8vN3xL0pR7tY2w.js", "Zq8vN3xL0pR7tY2w"),
]

test_a_look_alike_is_kept_and_its_twin_redacted = pair_test(PAIRS)
test_a_look_alike_is_kept, test_a_secret_is_redacted = round_tests(KEPT, REDACTED_CASES)
