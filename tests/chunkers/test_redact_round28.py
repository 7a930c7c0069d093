"""Twenty-eighth round: more secrets whose name and value sit on different lines (the development corpus whispers'
misses the twenty-seventh round left: integration.conf's and integration.xml's `<key>pro_password</key>` then
`<value>…</value>`, hardcoded.yml's and hardcoded.json's list of passwords under `02_hardcoded_passwords`,
cloudformation.json's `Default` under the parameter `NoncompliantDBPassword`). Found: an XML `<key>` element's
`<value>` on the same line or the next, judged as a `- key:` / `value:` item is; a YAML or JSON list's items under a
password's name, each judged as `password = "…"` is on one line (under another secret's name, a value that looks
generated only); a CloudFormation parameter's `Default` under a secret's name, judged as `name = "…"` is. Kept: an
empty value, a placeholder, `${…}` and `{{ … }}`, a name not a secret's (`username`, `DBUser`, `KeyName`), a compose
file's `secrets:` list of secret names, a list of mappings (`- name: regcred`), a list named as a word list
(`default_passwords`), a list under `password_validators`, an SSM parameter's path. Values are made up here."""

from tests.chunkers.redact_asserts import GENERATED, lines_test, pair_test, round_tests

PW = "Tr4in-Ledger-91"


def _entry(name: str, value: str) -> str:
    return f"<credentials>\n  <entry>\n    <key>{name}</key>\n    <value>{value}</value>\n  </entry>\n</credentials>"


def _cfn_yaml(name: str, default: str) -> str:
    return f"Parameters:\n  {name}:\n    Type: String\n    NoEcho: true\n    Default: {default}\n"


def _cfn_json(name: str, default: str) -> str:
    return ('{\n  "Parameters": {\n    "' + name + '": {\n      "Description": "Database password",\n'
            '      "Type": "String",\n      "Default": "' + default + '"\n    }\n  }\n}')


# (look-alike, its secret twin, the twin's secret): the twin is the same text with a secret in the value's place
PAIRS = [
    # newly found: an XML entry's <value> after its secret-named <key>
    (_entry("password", ""), _entry("password", PW), PW),
    (_entry("password", "${DB_PASSWORD}"), _entry("business.password", PW), PW),
    (_entry("username", PW), _entry("PASS", PW), PW),
    (_entry("pro_email", "email@domain.tld"), _entry("api_token", GENERATED), GENERATED),
    ("<entry><key>password</key><value>changeme</value></entry>",
     f"<entry><key>password</key><value>{PW}</value></entry>", PW),
    # newly found: a list of values under a password's name, YAML and JSON
    ('passwords:\n  - changeme\n  - "${ADMIN_PASSWORD}"\n  - "{{ vault_pw }}"',
     f'passwords:\n  - changeme\n  - "{PW}"\n  - "{{{{ vault_pw }}}}"', PW),
    ('"02_hardcoded_passwords": [\n  "$password",\n  ""\n]',
     f'"02_hardcoded_passwords": [\n  "$password",\n  "{PW}"\n]', PW),
    # under another secret's name only a value that looks generated (a compose file's `secrets:` names its secrets)
    ("services:\n  web:\n    secrets:\n      - server-certificate\n      - db_password",
     f"services:\n  web:\n    secrets:\n      - server-certificate\n      - {GENERATED}", GENERATED),
    ('"api_keys": [\n  "primary",\n  "fallback"\n]', f'"api_keys": [\n  "primary",\n  "{GENERATED}"\n]', GENERATED),
    # a list of mappings is no list of values; a word list of common passwords is none of anyone's
    ("imagePullSecrets:\n  - name: regcred", f"passwords:\n  - {PW}", PW),
    ('"default_passwords": [\n  "password",\n  "admin",\n  "guest"\n]',
     '"admin_passwords": [\n  "password",\n  "Adm1n!guest"\n]', "Adm1n!guest"),
    ("password_validators:\n  - django.contrib.auth.password_validation.MinimumLengthValidator",
     f"db_passwords:\n  - {PW}", PW),
    # newly found: a CloudFormation parameter's Default under a secret's name, YAML and JSON
    (_cfn_yaml("DBPassword", "changeme"), _cfn_yaml("DBPassword", PW), PW),
    (_cfn_yaml("DBUser", "admin"), _cfn_yaml("NoncompliantDBPassword", "admin"), "Default: admin"),
    (_cfn_json("DBPassword", ""), _cfn_json("DBPassword", PW), PW),
    (_cfn_json("KeyName", "my-key-pair"), _cfn_json("GithubToken", GENERATED), GENERATED),
]

KEPT = [
    # an SSM parameter's path under a password's name is where the secret is kept, not the secret
    "Parameters:\n  DBPasswordParam:\n    Type: AWS::SSM::Parameter::Value<String>\n    Default: /prod/db/password",
    'Parameters:\n  DBPassword:\n    Type: String\n    Default: ""',
    # S3's <Key> names an object; only the lower-case <key>/<value> pair is read
    f"<Contents>\n  <Key>password</Key>\n  <Value>{PW}</Value>\n</Contents>",
    "keys:\n  - id\n  - name\n  - email",
    'tokens:\n  - "IDENT"\n  - "NUMBER"',
]

REDACTED_CASES = [
    (f"<entry>\r\n  <key>pro_password</key>\r\n  <value>{PW}</value>\r\n  <info>metadata</info>\r\n</entry>\r\n", PW),
    (f"- name: db\n  passwords:\n    - {PW}\n", PW),
    (f"passwords:\n- {PW}\nother: 1", PW),
    (f'Parameters:\n  NoncompliantDBPassword:\n    Description: Database password\n    Type: String\n'
     f'    Default: "{PW}"\n', PW),
]

test_a_look_alike_is_kept_and_its_twin_redacted = pair_test(PAIRS)
test_a_look_alike_is_kept, test_a_secret_is_redacted = round_tests(KEPT, REDACTED_CASES)


test_only_the_values_line_changes = lines_test([(twin, s) for _, twin, s in PAIRS] + REDACTED_CASES)
