"""Eighty-fourth round: PocketBase, Supabase Auth, Umami (real code) and OWASP PyGoat read held out after the
eighty-third round (figures: benchmarks/secrets_recall.md, round 84). Values made up where a secret is meant."""

from chunkers.redact import REDACTED, redact_text
from tests.chunkers.redact_asserts import GENERATED, bodies, round_tests


KEPT = [
    # a query string's pairs, each judged under its own name: a cursor's, then ordinary ones
    '\t\t"continuation-token=test_ct&delimiter=test_delimiter&encoding-type=test_et&max-keys=1&prefix=test_prefix",',
    # how far a clock may drift, how many a limit allows
    '// (the value must be in seconds, e.g. "PB_ID_TOKEN_LEEWAY=60" for 1 minute).',
    'GOTRUE_RATE_LIMIT_TOKEN_REFRESH="30"',
    # a JWT header's key id
    'key2Token.Header["kid"] = "key2"',
    # a Go constant read with its type's name, whose last word says the value is a reason
    '\tPwned      ErrorSchemaWeakPasswordReasons = "pwned"',
    # an instruction to change the value, shouted; a placeholder run together
    'GOTRUE_JWT_SECRET="CHANGE-THIS! VERY IMPORTANT!"',
    "SECRET_KEY=YOURSECRETKEYGOESHERE",
    # a literal and a sentence's stop
    "                password=TRUE.",
    # a message's id of dotted words
    "  newPassword: 'label.new-password',",
    "  noMatchPassword: 'message.no-match-password',",
    # a message in another language, two words joined by `/`
    '  "incorrect-username-password": "Felaktigt användarnamn/lösenord.",',
    # a sample's name for a hash
    '\t\tToken: "some-token-hash",',
    # a cursor's name, words and camel case
    f'nextPageToken: "{GENERATED}"',
    f"NEXT_PAGE_TOKEN={GENERATED}",
    # a command running one script
    'run_token = "node scripts/refresh-token.js"',
]


REDACTED_CASES = [
    # a query's secret before other pairs, and after a placeholder
    (f'"access_token={GENERATED}&delimiter=x&list-type=2"', GENERATED),
    (f'"token=?&secret={GENERATED}"', GENERATED),
    ('"token=hunter2&user=admin"', "hunter2"),
    # the number under a token's own name; a generated value under a limit's, a key id's, a reason's name
    ('PB_ID_TOKEN="60"', "60"),
    (f'GOTRUE_RATE_LIMIT_TOKEN="{GENERATED}"', GENERATED),
    ('RATE_LIMIT_PASSWORD="30"', "30"),
    (f'key2Token.Header["kid"] = "{GENERATED}"', GENERATED),
    (f'Pwned ErrorSchemaWeakPasswordReasons = "{GENERATED}"', GENERATED),
    # a generated run after the instruction, digits after the placeholder
    (f'GOTRUE_JWT_SECRET="CHANGE-THIS-{GENERATED}"', GENERATED),
    ("SECRET_KEY=YOURSECRETKEYGOESHERE123x", "YOURSECRETKEYGOESHERE123x"),
    ("password=TRUE.2", "TRUE.2"),
    # a dotted value with no password's word under a password's name, digits in a message's word
    ("newPassword: 'hunter.two-three'", "hunter.two-three"),
    (f'"incorrect-password": "lösenord/{GENERATED}."', GENERATED),
    # a message's id not ending in its name's word, a word in a query string
    ("key1=amzn.mws.abcdefab-abcd-abcd-abcd-abcdefabcdef", "amzn.mws.abcdefab-abcd-abcd-abcd-abcdefabcdef"),
    ('"token=bacdefghijklmnopqrs&user=admin"', "bacdefghijklmnopqrs"),
    # a cursor's word inside another (Statuspage's token)
    (f"statuspage_token = {GENERATED}", GENERATED),
    # a flag after the script
    (f'"deploy_token": "node deploy.js --token={GENERATED}"', GENERATED),
]

test_a_look_alike_is_kept, test_a_secret_is_redacted = round_tests(KEPT, REDACTED_CASES)


def test_the_pairs_after_a_query_s_secret_are_kept():
    out = redact_text('"token=hunter2&user=admin&list-type=2"')
    assert out == f'"token={REDACTED}&user=admin&list-type=2"'


def test_a_package_s_script_running_a_file_is_no_secret():
    text = ('{\n  "scripts": {\n    "change-password": "node scripts/change-password.js",\n'
            f'    "set-password": "{GENERATED}"\n  }}\n}}\n')
    body = bodies("package.json", text)
    assert "node scripts/change-password.js" in body and GENERATED not in body


def test_a_long_word_of_another_language_s_letters_is_read_in_linear_time():
    """A phrase's word of non-ASCII letters was found by splitting it in three: 30,000 letters before a `/` took 14 s
    on round 83 (benchmarks/redact_worst_case.py's foreign_word_slash), 0.04 CPU s now; the bound is generous."""
    import time

    text = '"password": "ab ' + "ä" * 30_000 + "/" + "ä" * 30_000 + '1."'
    t = time.process_time()
    redact_text(text)
    assert time.process_time() - t < 1.0
