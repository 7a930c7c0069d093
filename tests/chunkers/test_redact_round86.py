"""Eighty-sixth round: NATS Server, smallstep's certificates, DefectDojo (real code) and OWASP Serverless Goat read
held out after the eighty-fifth round (figures: benchmarks/secrets_recall.md, round 86). Values made up where a
secret is meant."""

from tests.chunkers.redact_asserts import GENERATED, bodies, round_tests


KEPT = [
    # a scanner's mask as a URL's password
    '"name": "Passwords And Secrets - Password in URL (postgres://postgres:---REDACTED---@db:5432/postgres?)",',
    # the name of a Secret a chart reads
    "  --set license.existingSecret=dojopro-license \\",
    "existingSecret: dojopro-license",
]


REDACTED_CASES = [
    # a password between signs that are no mask's
    ("postgres://postgres:--hunter2--@db", "hunter2"),
    # a secret's name after `existingSecret`
    ("existingSecretPassword: hunter2x", "hunter2x"),
]

test_a_look_alike_is_kept, test_a_secret_is_redacted = round_tests(KEPT, REDACTED_CASES)


def test_a_scanner_s_findings_in_a_list_of_secrets_keep_their_fields():
    text = ('{"secrets": [{"detector": "htpasswd", "severity": "low", "confidence": "high",\n'
            '  "tags": ["in-app-code", "in-repo"], "location": {"filepath": ".ssh/id_rsa", "beginLine": 12},\n'
            f'  "secret": "{GENERATED}", "line": "export TOKEN={GENERATED}"}}]}}\n')
    body = bodies("report.json", text)
    for kept in ("htpasswd", "low", "high", "in-app-code", ".ssh/id_rsa", "12"):
        assert kept in body, kept
    assert GENERATED not in body

