"""Ninety-fourth round: round 90's secret-named list literal where it is not the line's first opener (`x = [1];
passwords = […]`, a minified bundle's `p0={passwords:["…"]}`), left by round 90 (figures: benchmarks/secrets_recall.md,
round 94). Values made up where a secret is meant."""

from tests.chunkers.redact_asserts import GENERATED, round_tests


KEPT = [
    # a later list under no secret's name, or under a name about passwords, after an earlier opener
    f"x = [1]; user_ids = ['{GENERATED}']",
    f"x = [1]; password_fields = ['{GENERATED}']",
    f'p0={{a:[1],hashes:["{GENERATED}"]}}',
    # an object's member inside the later list has a name of its own; an object under the name is no list
    f'p0={{a:1,secrets:[{{"id":"{GENERATED}"}}]}}',
    f'x = [1]; "secrets":{{"name":"{GENERATED}"}}',
    # words under the later secret's name stay (round 23's list of names)
    'x = [1]; String[] SECRETS = {"secret", "admin"};',
]


REDACTED_CASES = [
    # the secret's list after another opener on the line
    (f"x = [1]; passwords = ['{GENERATED}']", GENERATED),
    ("$a = array(1); $pwd = array('9b74c9897bac770ffc029102a200c5de');", "9b74c9897bac770ffc029102a200c5de"),
    # a minified bundle's object: its first opener is the object's brace
    (f'p0={{passwords:["{GENERATED}","{GENERATED}x"]}}', GENERATED),
    (f'var c={{a:[1,2],secrets:["{GENERATED}"]}};', GENERATED),
]

test_a_look_alike_is_kept, test_a_secret_is_redacted = round_tests(KEPT, REDACTED_CASES)
