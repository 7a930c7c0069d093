"""Ninety-ninth round: look-alikes found reading 1Password's shell plugins, dotenvx, AWS' Secrets Manager rotation
functions, HashiCorp's vault-examples, auth0's node-jsonwebtoken, golang/oauth2 (real code), Contrast's go-test-bench
and the Damn Vulnerable WordPress (built to leak) held out after the ninety-eighth round (figures:
benchmarks/secrets_recall.md, round 99). Values made up where a secret is meant."""

from chunkers.redact import REDACTED, redact_value
from tests.chunkers.redact_asserts import GENERATED, bodies, pair_test

PAIRS = [
    # an SSH key's file in a hidden folder: where a key is read from
    ("  ssh_key: ~/.ssh/id_ed25519", f"  ssh_key: ~/.ssh/{GENERATED}", GENERATED),
    ("SSH_KEY=/home/ci/.ssh/id_rsa", f"SSH_KEY=/home/ci/.ssh/{GENERATED}", GENERATED),
    # a Bitwarden reference (dotenvx): an item's name of words, or a template's hole
    ("const parsed = { PASSWORD: 'bw://My GitHub Account/password', PLAIN: 'value' }",
     f"const parsed = {{ PASSWORD: 'bw://My GitHub Account/{GENERATED}', PLAIN: 'value' }}", GENERATED),
    ("  SECRET: `bw://${ITEM_ID}/password`,", f"  SECRET: `bw://${{ITEM_ID}}/{GENERATED}`,", GENERATED),
    # a name and its `=` quoted, code or words after the closing quote
    ("  $PRIVATE_KEY = ((Get-Content .env.keys | Select-String 'DOTENV_PRIVATE_KEY=') -split '=')[1]",
     f"  x = 'DOTENV_PRIVATE_KEY='{GENERATED}'", GENERATED),
    ("""t.ok(stub.calledWith("could not decrypt using private key 'DOTENV_PRIVATE_KEY='. fix: [https://x.io/1]"))""",
     f"""t.ok(stub.calledWith("could not decrypt using private key 'DOTENV_PRIVATE_KEY='{GENERATED}'"))""", GENERATED),
    # a database's engine; a Vault secrets engine's path; a shell's last status
    ("    secret_dict['engine'] = 'redshift'", f"    secret_dict['password'] = '{GENERATED}'", GENERATED),
    ("secret.kv.path=database", f"secret.kv.token={GENERATED}", GENERATED),
    ("SECRET_ID_EXIT=$?", f"SECRET_ID_EXIT={GENERATED}", GENERATED),
    # a string's quote closed before code: a statement's end, a constant between concatenations, a static call
    ('i.src=u+"&session_token="+session_token;document.body.appendChild(i);return}var p="action";',
     f'var session_token="{GENERATED}";document.body.appendChild(i);return}}var p="action";', GENERATED),
    ("file_put_contents($f, \"[mysqldump]\\npassword=\".DB_PASSWORD.\"\\n\");",
     f"file_put_contents($f, \"[mysqldump]\\npassword=.{GENERATED}.\\n\");", GENERATED),
    ("<input name=\"database_encryption_key\" value='.  WPTC_Factory::get('config')->get('x') .'\">",
     f"<input name=\"database_encryption_key\" value='.  {GENERATED}'>", GENERATED),
    # a constant spelling its own name's words: a credentials file's type, a message's code
    ('\tserviceAccountKey                = "service_account"', f'\tserviceAccountKey = "{GENERATED}"', GENERATED),
    ('KINIT_PENDING_CREDS_SUCCESSFUL: Final = "KINIT_USING_PENDING_CREDS_SUCCESSFUL"',
     f'KINIT_PENDING_CREDS: Final = "{GENERATED}"', GENERATED),
    # an SDK paginator's fields
    ("            'input_token' => 'Marker',", f"            'input_token' => '{GENERATED}',", GENERATED),
    ("            'token_key'   => 'NextPartNumberMarker',", f"            'token_key'   => '{GENERATED}',", GENERATED),
    # a request signing scheme's name alone; an Akamai API host's name
    ("""\t\t$request->setHeader('Authorization', "AWS4-HMAC-SHA256 \"""",
     f"""\t\t$request->setHeader('Authorization', "{GENERATED}9 \"""", f"{GENERATED}9"),
    ("host = akab-lmn789n2k53w7qrs-nfkxaa4lfk3kd6ym.luna.akamaiapis.net",
     "client_token = akab-nomoflavjuc4422e-fa2xznerxrm3teg7", "akab-nomoflavjuc4422e-fa2xznerxrm3teg7"),
]

test_a_look_alike_is_kept_and_its_twin_redacted = pair_test(PAIRS)

LOGBACK = """<configuration>
  <appender name="VAULT_SECRET" class="ch.qos.logback.core.rolling.RollingFileAppender">
    <file>${catalina.base}/logs/vault-secret-changes.log</file>
    <rollingPolicy class="ch.qos.logback.core.rolling.SizeAndTimeBasedRollingPolicy">
      <maxFileSize>5MB</maxFileSize>
      <totalSizeCap>500MB</totalSizeCap>
    </rollingPolicy>
    <password>%s</password>
  </appender>
  <logger name="com.example.vaulttomcat.service.VaultSecretService" level="DEBUG" additivity="false">
    <appender-ref ref="VAULT_SECRET"/>
  </logger>
</configuration>
"""


def test_a_log_appender_named_for_secrets_keeps_its_settings():
    """An appender or a logger is named for what it logs: its file, sizes and level are no secrets; a password's
    element inside it stays one."""
    out = bodies("logback.xml", LOGBACK % GENERATED)
    for kept in ("vault-secret-changes.log", "5MB", "500MB", "DEBUG", "ref = VAULT_SECRET"):
        assert kept in out, out
    assert GENERATED not in out and REDACTED in out


def test_where_a_credential_comes_from_is_kept():
    path = ("vault", "database", "credential", "source")
    assert redact_value(path, "dynamic") == "dynamic"
    assert redact_value(path, GENERATED) == REDACTED
