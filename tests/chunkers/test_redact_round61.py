"""Sixty-first round: OWASP/wrongsecrets, a repository of secrets planted on purpose in code, Dockerfiles, Kubernetes
manifests, scripts and docs, read held out (`secrets_recall.py --changed-lines` and `--settings`, and each secret-named
line a run stores whole) before this round (figures: benchmarks/secrets_recall.md, round 61). Its look-alikes and the
one planted form a run stored that is no policy's, kept or redacted here; values made up where a secret is meant."""

import pytest

from chunkers import chunk_file_result
from chunkers.redact import redact_text

GENERATED = "Zq8vK2pLm9Xc4Rt7wq"


def _body(name: str, text: str) -> str:
    return "\n".join(piece.body for piece in chunk_file_result(name, text.encode()).pieces)


@pytest.mark.parametrize("name, text, kept", [
    # a workflow's job named for the scanner it runs, a Compose service named for what it serves: a unit's name
    (".github/workflows/scan.yml", "jobs:\n  git-secrets:\n    runs-on: ubuntu-latest\n    steps:\n"
                                   "      - name: Install git-secrets\n        run: make install\n", "runs-on = ubuntu-latest"),
    ("compose.yaml", "services:\n  vault-secrets:\n    image: hashicorp/vault:1.15\n", "image = hashicorp/vault:1.15"),
    # an address under a section of secrets: Spring's Azure Key Vault source, a database's host and port
    ("application.properties", "spring.cloud.azure.keyvault.secret.property-sources[0].endpoint="
                               "https://app-kv.vault.azure.net/\n", "https://app-kv.vault.azure.net/"),
    ("application.properties", "spring.cloud.azure.keyvault.secret.property-sources[0].name=app-keyvault\n",
     "= app-keyvault"),
    ("settings.yaml", "secrets:\n  db:\n    host: db.internal\n    port: 5432\n", "host = db.internal"),
    # a secret's mount path, glued into one word; a CSI driver's provider class
    ("application.properties", "secretmountpath=nothere\n", "secretmountpath = nothere"),
    ("deploy.yaml", "volumes:\n  - csi:\n      volumeAttributes:\n        secretProviderClass: \"app-aws-secretsmanager\"\n",
     "app-aws-secretsmanager"),
])
def test_a_settings_look_alike_is_kept(name, text, kept):
    body = _body(name, text)
    assert kept in body and "[REDACTED]" not in body, body


@pytest.mark.parametrize("name, text", [
    (".github/workflows/scan.yml", f"jobs:\n  git-secrets:\n    env:\n      API_TOKEN: {GENERATED}\n"),
    ("compose.yaml", "services:\n  vault-secrets:\n    environment:\n      VAULT_PASSWORD: Wint3rIsHere\n"),
    ("compose.yaml", "secrets:\n  db:\n    password: Wint3rIsHere\n"),
    ("settings.yaml", f"secrets:\n  db:\n    name: {GENERATED}\n"),  # a generated value under any name
    ("application.properties", "spring.cloud.azure.keyvault.secret.property-sources[0].credential.client-secret="
                               "Wint3rIsHere\n"),
])
def test_a_settings_secret_is_still_redacted(name, text):
    body = _body(name, text)
    assert GENERATED not in body and "Wint3rIsHere" not in body and "[REDACTED]" in body, body


@pytest.mark.parametrize("line", [
    # a shell string's closing quote after its `:`, a command after it
    '''echo "base image: $(grep "^FROM org/wrongsecrets:" Dockerfile.web | cut -d':' -f2)"''',
    # a word of prose between two tags a sentence names
    "// Normalization extracts the value between <secret> and </secret> once at load time.",
    # a placeholder, a reference, a public key's, a sort key's and a field's name in a code span
    "- API key: `YOUR_API_KEY`",
    "token: `${{ secrets.NPM_TOKEN }}`",
    "Public key: `AAAAC3NzaC1lZDI1NTE5AAAAI`",
    "sort key: `created_at_2024`",
    "Set the key to `ENCRYPTION_KEY_2`",
])
def test_a_free_text_look_alike_is_kept(line):
    assert redact_text(line) == line


@pytest.mark.parametrize("line", [
    # a value in a code span after a secret's label (wrongsecrets' project specification, challenge 56)
    f"- Example API key for testing: `{GENERATED}`",
    f"- API key: `{GENERATED}`",
    f"The API key for staging is `{GENERATED}`.",
    "Password: `Wint3rIsHere`",
    # a secret's name glued to `:` and a quote, a value with no command in it
    f'password:"{GENERATED}"',
    "<password>Wint3rIsHere</password>",
])
def test_a_free_text_secret_is_redacted(line):
    out = redact_text(line)
    assert GENERATED not in out and "Wint3rIsHere" not in out and "[REDACTED]" in out, out


def test_a_markdown_file_stores_no_api_key_in_a_code_span():
    text = ("# Project specification\n\nSome example configurations that may be referenced:\n\n"
            "- Database connection: `jdbc:postgresql://localhost:5432/app`\n"
            f"- Example API key for testing: `{GENERATED}`\n- Docker registry: `docker.io/org/app`\n")
    for name in ("project-specification.mdc", "README.md"):
        body = _body(name, text)
        assert GENERATED not in body and "jdbc:postgresql://localhost:5432/app" in body, (name, body)
