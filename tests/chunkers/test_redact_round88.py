"""Eighty-eighth round: Keywhiz, Confidant, Lemur, Conjur, Sealed Secrets (real code) and vulnerable-node read held
out after the eighty-seventh round (figures: benchmarks/secrets_recall.md, round 88). Values made up where a secret
is meant."""

import time

from chunkers.redact import redact_text
from tests.chunkers.redact_asserts import GENERATED, bodies, round_tests


KEPT = [
    # Summon's reference to a secret store's variable
    "  AWS_SECRET_ACCESS_KEY: !var ci/aws/iam/users/dev_limited_user/secret_access_key",
    "  OKTA_PASSWORD: !var:file dev/okta/user/assigned/password",
    # a path ending in a variable
    "  -e GCLOUD_SERVICE_KEY=/tmp$GCLOUD_SERVICE_KEY \\",
    # an instruction to change the value: Java's keystores' and a shouted one
    "keyStorePassword: changeit",
    "  password: CHANGE",
    '    char[] password = "CHANGE".toCharArray();',
    # a number under a size's or a lifetime's name
    "export KMS_AUTH_TOKEN_CACHE_SIZE=4096",
    "export AUTH_TOKEN_MAX_LIFETIME='10'",
    # a word that goes on a sentence after a flag, files listed after a key's flag
    '\tfmt.Fprintf(os.Stderr, "warning: ignoring --recovery-private-key because unseal command not chosen\\n")',
    "you can use `kubeseal --recovery-unseal --recovery-private-key file1.key,file2.key,...`",
    # JBoss' option about passwords, a namespace's abbreviation under a secret's name
    '<module-option name="password-stacking" value="useFirstPass"/>',
    '\tsecretNS    = "myns"',
    # a kind's name of its name's first words
    '\tSealedSecretPlural = "sealedsecrets"',
    '\tExternalSecretSubsystem = "externalsecret"',
]


REDACTED_CASES = [
    # Summon's literal, a variable's tag with a generated value after the path
    (f"  DB_PASSWORD: !str {GENERATED}", GENERATED),
    (f"  DB_PASSWORD: !var {GENERATED} {GENERATED}x", GENERATED),
    # a path before a generated value, no variable
    (f"  -e GCLOUD_SERVICE_KEY=/tmp/{GENERATED} \\", GENERATED),
    # change in lower case alone, a word after change it
    ("  password: change", "change"),
    ('  password: "Xq7#changeit"', "Xq7#changeit"),
    # a number under a password's name, a generated value under a size's name
    ("export MAX_PASSWORD=4096", "4096"),
    (f"export TOKEN_CACHE_SIZE={GENERATED}", GENERATED),
    # a token after a flag, a file name and a generated value listed
    ("  --recovery-private-key h4nter2xy", "h4nter2xy"),
    (f"  --recovery-private-key file1.key,{GENERATED}", GENERATED),
    # a generated value under a password's option, under a namespace's name with a secret's word after it
    (f'<module-option name="password" value="{GENERATED}"/>', GENERATED),
    (f'\tsecretNSKey = "{GENERATED}"', GENERATED),
    # a secret's words as a kind's name, words the name does not begin with
    ('SECRET_KEY_HMAC = "secretkey"', "secretkey"),
    ('\tSealedSecretPlural = "sealedhunter"', "sealedhunter"),
    ('    val topSecretKey = "topsecret"', "topsecret"),
]

test_a_look_alike_is_kept, test_a_secret_is_redacted = round_tests(KEPT, REDACTED_CASES)


def test_summon_s_secrets_file_keeps_its_references_and_a_literal_is_redacted():
    text = ("AWS_ACCESS_KEY_ID: !var ci/aws/access_key_id\nOKTA_PASSWORD: !var:file ci/okta/password\n"
            f"DB_PASSWORD: !str {GENERATED}\n")
    body = bodies("secrets.yml", text)
    assert "ci/aws/access_key_id" in body and "ci/okta/password" in body and GENERATED not in body


def test_a_long_name_s_words_are_read_in_linear_time():
    """A value of its name's first words joined each head afresh: a name of 30,000 words before a secret's took
    3-4 s (benchmarks/redact_worst_case.py's kind_name_words), a few hundredths now; the bound is generous."""
    text = "Sealed" + "Ab" * 30_000 + 'Secret = "sealedxyzq"'
    t = time.process_time()
    out = redact_text(text)
    assert time.process_time() - t < 1.0 and "sealedxyzq" not in out
