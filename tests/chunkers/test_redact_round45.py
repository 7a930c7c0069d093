"""Forty-fifth round, from real code's look-alikes (playwright's protocol types, pyarrow's tests): a TypeScript type of
literals under a name with `Token` in it (`export type TrustTokenOperationType = "Issuance"|"Redemption"`) is a
type, not a value; a value that is one word of its own name (`access_key='access'`, `access_token='access'`, a test's
stand-in) names no secret. A password's name keeps the twelfth round's policy, and a generated value under the same
names is still redacted."""

from tests.chunkers.redact_asserts import GENERATED, pair_test

PAIRS = [
    ('export type TrustTokenOperationType = "Issuance"|"Redemption"|"Signing";',
     f'const trustTokenOperationType = "{GENERATED}";', GENERATED),
    ('export type OriginTrialTokenStatus = "Success"|"NotSupported"|"Insecure";',
     f'originTrialToken = "{GENERATED}";', GENERATED),
    ("fs = S3FileSystem(access_key='access', secret_key='secret', anonymous=True)",
     f"fs = S3FileSystem(access_key='{GENERATED}', secret_key='secret', anonymous=True)", GENERATED),
    ("GcsFileSystem(access_token='access')", f"GcsFileSystem(access_token='{GENERATED}')", GENERATED),
]

test_a_look_alike_is_kept_and_its_twin_redacted = pair_test(PAIRS)
