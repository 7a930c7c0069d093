"""Eighteenth round (issue 33): the seventeenth round's closing list from bridgecrewio/checkov (development from
this round; auth0/repo-supervisor is held out and no case here comes from it). Secrets missed are found: a name
whose last word is `pass` after another word (`pg_pass`, `test_pass`, `dbPass`, `DB_PASS`) holding a literal that
looks generated or like a password (letters with digits inside, eight characters or more); `pass` alone, `bypass`,
`compass`, a step's pass (`first_pass`, `render_pass`) and a plain word or a word and digits are kept. Look-alikes
are kept, each with its secret twin still redacted: a sentence in another language's letters under a password-named
message key (a UI message), a plain-word kebab or camel identifier under a name with "token" or "key" as one word of
a longer name (Terraform's EFS `creation_token = "my-product"`, a constant naming a field), a spaced label mapped to
an upper-case id (`'Slack Token': 'CKV_SECRET_14'`). Values are made up here."""

from tests.chunkers.redact_asserts import GENERATED, pair_test, round_tests

LEET = "gr4nd0pen1ngDay7Now"

# (look-alike, its secret twin, the twin's secret): the twin is the same line with a secret in the value's place
PAIRS = [
    ('  "password_change_notice": "Passordet må være minst åtte tegn.",',
     f'  "password_change_notice": "{GENERATED}",', GENERATED),
    ('    "password_changed_text": "Lösenordet är ändrat, logga in på nytt.",',
     f'    "password_changed_text": "{GENERATED}",', GENERATED),
    ('creation_token   = "billing-service"', f'creation_token   = "{GENERATED}"', GENERATED),
    ("SERVERLESS_FUNCTIONS_TOKEN = 'functionHandlers'", f"SERVERLESS_FUNCTIONS_TOKEN = '{GENERATED}'", GENERATED),
    ("    'GitLab Token': 'CKV_SECRET_21',", f"    'GitLab Token': '{GENERATED}',", GENERATED),
    ('    "Mailgun API Token": "CKV_SECRET_REF_7",', f'    "Mailgun API Token": "{GENERATED}",', GENERATED),
]

KEPT = [
    # `pass` alone, glued in another word, or a step's pass
    f'pass = "{LEET}"',
    f'bypass = "{LEET}"',
    f'compass = "{LEET}"',
    f'first_pass = "{LEET}"',
    f'render_pass = "{LEET}"',
    # a plain word, or a word and digits, under a pass name (a placeholder under any; a weak password under an
    # account's pass name, `db_pass = "postgres123"`, is redacted since the fifty-fifth round: test_redact_round55)
    'db_pass = "changeme"',
    'test_pass = "postgres123"',
    # `pass` not the name's last word
    f'pass_through = "{LEET}"',
    # a variable, not a literal
    "db_pass = os.environ['DB_PASS']",
]

REDACTED_CASES = [
    (f'"pg_pass": "{LEET}",', LEET),
    (f'var pg_pass="{LEET}";', LEET),
    (f'"test_pass": "{GENERATED}",', GENERATED),
    (f'dbPass = "{LEET}"', LEET),
    (f'DB_PASS: "{LEET}"', LEET),
    (f"smtp_pass => '{LEET}',", LEET),
    # the limits: under a strong name a plain-word identifier is still a value, a spaced label's value a secret
    ('api_token = "billing-service"', "billing-service"),
    ('auth_key = "functionHandlers"', "functionHandlers"),
    ("    'Slack Token': 'xoxb_SECRET_14',", "xoxb_SECRET_14"),
    # one word under a password's name stays a value (a password can be one word)
    ('"password": "Passord",', "Passord"),
]

test_a_look_alike_is_kept_and_its_twin_redacted = pair_test(PAIRS)
test_a_look_alike_is_kept, test_a_secret_is_redacted = round_tests(KEPT, REDACTED_CASES)
