"""Thirty-eighth round: octarinesec/secret-detector's detector tests, held out until their figures were taken, held
nine positives of real secrets' forms the redactor missed: an access key id of AWS's `A3T` prefix, a 40-character
secret access key quoted after a name that begins with `aws` (`aws="…"`, glued as the tests write it, `AWS"…"`),
and a long Basic or Bearer credential with no `Authorization:` before it and no quote around it. One of its negatives
was no secret and was redacted: a Slack webhook URL of its ids alone (`…/services/T…/B…/`, the secret part missing).
Kept: a toy credential (`basic dTpw`, `u:p`), words after the scheme's name (`Basic authentication`), an identifier
(`Bearer tokenProviderFactory2x`), a hex digest under an `aws` name, an ARN, a region. Values are made up here."""

from tests.chunkers.redact_asserts import GENERATED, round_tests

AWS_SECRET = "Hk3+9fJ2/aQ8xLm0PzR7tYb4NcW1vE6sDg5KuTo0"
PAIR = "dHJhaW4tbGVkZ2VyOlRyNGluLUxlZGdlci05MXo="  # base64 of train-ledger:Tr4in-Ledger-91z

KEPT = [
    "basic dTpw",
    "Authorization: Basic YTpn",
    "Basic authentication is configured in the gateway",
    "Bearer tokenProviderFactory2x",
    "Bearer ${API_TOKEN}",
    "basic dGhpc2lzbm90YXBhaXJhdGFsbA==",  # base64 of thisisnotapairatall: no colon, no user:password pair
    'aws_sha1 = "4d186321c1a7f0f354b297e8914ab240b2c6d1e0"',
    'aws_role = "arn:aws:iam::123456789012:role/ledger-ingest"',
    'aws_region = "eu-west-1"',
    "https://hooks.slack.com/services/T3AQEJU4D/B9DBLTV2S/",
    "A3TS is a prefix",
]

REDACTED = [
    ("A3TX7QH2K9MZ4R8WB5NC", "A3TX7QH2K9MZ4R8WB5NC"),
    (f'aws = "{AWS_SECRET}"', AWS_SECRET),
    (f'AWS"{AWS_SECRET}"', AWS_SECRET),
    (f"aws_prod: '{AWS_SECRET}'", AWS_SECRET),
    (f"Basic {PAIR}", PAIR),
    (f"curl -v -H Basic {PAIR} https://api.example.test", PAIR),
    (f"Bearer  {GENERATED}", GENERATED),
    (f"2026-12-05 10:01 sent Bearer {GENERATED} to the API", GENERATED),
    ("https://hooks.slack.com/services/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", "0mKbFowIBxhj6lPSos5ee3sk"),
]

test_a_look_alike_is_kept, test_a_secret_is_redacted = round_tests(KEPT, REDACTED)
