"""Ninety-eighth round: every secret-named list literal on a line, not only the first (`passwords = […]; secrets =
[…]`, a minified bundle's `p0={passwords:[…]};p1={passwords:[…]}`), each read up to the next opener, so a later list
under no secret's name keeps its items (figures: benchmarks/secrets_recall.md, round 98). Values made up."""

import time

from chunkers.redact import REDACTED, redact_text
from tests.chunkers.redact_asserts import GENERATED, round_tests

# a second generated value, so a case can say which list's item is meant
OTHER = "Hf4kW9sJ2nQ6xV1cT8bR3mP"

KEPT = [
    # a list under no secret's name after a secret's list of words: its items are the ids', not the passwords'
    f"passwords = ['admin', 'guest'], ids = ['{GENERATED}', '{OTHER}']",
    f"secrets = ['admin']; user_ids = ['{GENERATED}', '{OTHER}']",
    f'{{"SECRETS":["admin"],"hashes":["{GENERATED}","{OTHER}"]}}',
    # words under each secret's name stay (round 23's list of names)
    'String[] SECRETS = {"secret", "admin"}; String[] PASSWORDS = {"guest", "root"};',
]

REDACTED_CASES = [
    # the second secret's list on the line, after the first's
    (f"passwords = ['{GENERATED}']; secrets = ['{OTHER}']", OTHER),
    (f"passwords = ['admin']; secrets = ['{OTHER}']", OTHER),
    (f'{{"passwords": ["{GENERATED}"], "secrets": ["{OTHER}"]}}', OTHER),
    ("$pwd = array('21232f297a57a5a743894a0e4a801fc3'); $pwd2 = array('9b74c9897bac770ffc029102a200c5de');",
     "9b74c9897bac770ffc029102a200c5de"),
    # a minified bundle's objects, one after another
    (f'p0={{passwords:["{GENERATED}"]}};p1={{passwords:["{OTHER}"]}}', OTHER),
]

test_a_look_alike_is_kept, test_a_secret_is_redacted = round_tests(KEPT, REDACTED_CASES)


def test_a_bundle_of_many_objects_keeps_none_of_their_passwords():
    """3,000 minified objects' lists on one line: each item redacted, the line read once (round 94 kept 2,999)."""
    line = ";".join(f'p{i}={{passwords:["{GENERATED}{i}"]}}' for i in range(3000))
    start = time.process_time()
    out = redact_text(line)
    assert time.process_time() - start < 2.0
    assert out.count(REDACTED) == 3000 and GENERATED not in out
