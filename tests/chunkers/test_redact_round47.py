"""Forty-seventh round: a secret's word glued to `=` or `: ` inside a line of prose, a log or a command, with more of
the line after the value (`login with password: … for it`, `user=alice password=… action=login`, `API_TOKEN=…
./deploy.sh`): judged as the same pair at a line's end was (a random-looking value with a digit), and under a
password's or a secret's own name a value of letters and digits that is not words and a number. Planted in one long
line by `benchmarks/long_line_pieces.py`, the prose files kept 600 of 3,600 values before this round. Kept: the
names of a key that is no secret (`sort_key`, `partition_key`), placeholders, words and a number, a format string,
a parameter's type after `: ` (`key: Ed25519PrivateKey | …`).
Values are made up here."""

from tests.chunkers.redact_asserts import round_tests

KEPT = [
    "sort_key=Zq8fK2mXq9LpR4tY and more",
    "partition_key=tenant_2024_eu_west_1 x",
    "api_key: YOUR_API_KEY_HERE_12345 and more",
    "set token=xxxxxxxxxxxxxxxxxxxx then",
    "the password=correcthorsebatterystaple1 is",
    "Use password=Password123456 to log in",
    'logger.info("token=%s user=%s", tok, user)',
    "rotate secret: kv-prod-westeurope-01 daily",
    "idempotency_key=order-2024-11-04-0001 x",
    # a parameter's type (cryptography's and PyJWT's signatures)
    "        self, private_key: ed25519.Ed25519PrivateKey, f_priv: _FragList",
    "            self, msg: str | bytes, key: Ed25519PrivateKey | Ed448PrivateKey",
]

REDACTED = [
    ("Use password=Zq8fK2mXq9LpR4tY to log in", "Zq8fK2mXq9LpR4tY"),
    ("login with password: Zqwyla4szJxhvI3y for it", "Zqwyla4szJxhvI3y"),
    ("user=alice password=Zq8fK2mXq9LpR4tY action=login", "Zq8fK2mXq9LpR4tY"),
    ("x; password=Zq8fK2mXq9LpR4tY; y", "Zq8fK2mXq9LpR4tY"),
    ("env API_TOKEN=Rk3vQ8mZt2LpX9wYb4 ./run.sh", "Rk3vQ8mZt2LpX9wYb4"),
    ("curl -s https://example.com/api?x=1 client_secret=Ab3dE5gH7jK9mN1pQ3 -o out", "Ab3dE5gH7jK9mN1pQ3"),
]

test_a_look_alike_is_kept, test_a_secret_is_redacted = round_tests(KEPT, REDACTED)
