"""Hundred-and-sixth round: round 103 judged an attribute's path through a block's index by its last part, and a
path ending in a value's bare word (`secret.0.value`) lost the secret's name before it: `f("secret.0.value", "…")`,
redacted by round 102, was kept (found re-reading round 103 before this stop's note; figures: benchmarks/
secrets_recall.md, round 106). Values made up."""

from tests.chunkers.redact_asserts import round_tests

KEPT = [
    # no secret's name anywhere on the path: the last part judges it, as round 103 decided
    '\tresource.TestCheckResourceAttr(n, "security_and_analysis.0.secret_scanning.0.status", "enabled"),',
]

REDACTED_CASES = [
    ('f("secret.0.value", "s3cr3t-Value9")', "s3cr3t-Value9"),
    ('\tresource.TestCheckResourceAttr(name, "secret.0.value", "s3cr3t-Value9"),', "s3cr3t-Value9"),
    ('\tresource.TestCheckResourceAttr(name, "credentials.0.data", "Zq8vN3xL0pR7tY2w"),', "Zq8vN3xL0pR7tY2w"),
    ('\tresource.TestCheckResourceAttr(name, "webhook.0.secret.0.plaintext", "hmac-K3y!x"),', "hmac-K3y!x"),
]

test_a_look_alike_is_kept, test_a_secret_is_redacted = round_tests(KEPT, REDACTED_CASES)
