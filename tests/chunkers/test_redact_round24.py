"""Twenty-fourth round (issue 33): Checkmarx/kics' passwords-and-secrets tests (development from this round;
ajinabraham/njsscan's tests are held out and no case here comes from them). Found: a token under a provider's token
name (`FACEBOOK_TOKEN`) in a Kubernetes env entry, a value under its parent's secret name (`db-password:` then
`value: …`), a generic key whose last characters are few but do not repeat (no filler). Kept, each with its secret
twin still redacted: a quoted Terraform reference (`"var.…"`), kubectl's JSONPath template (`'{.credential.…}'`), a
ternary of references, a credentials' type's name, CloudFormation's `ServiceToken`, settings about a password
(`password_expire`, `update_password`), a filler's repeating end. Values are made up here."""

from tests.chunkers.redact_asserts import GENERATED, pair_test, round_tests

# (look-alike, its secret twin, the twin's secret): the twin is the same line with a secret in the value's place
PAIRS = [
    # newly kept: a Terraform reference quoted, a ternary of references
    ('  api_key = "var.mailgun_api_key"', f'  api_key = "var.{GENERATED}"', GENERATED),
    ("    password = local.db_is_primary ? var.db_password : null",
     f'    password = local.db_is_primary ? "{GENERATED}" : null', GENERATED),
    # newly kept: kubectl's JSONPath template
    ("        access-token: '{.credential.access_token}'", f"        access-token: '{GENERATED}'", GENERATED),
    # newly kept: a credentials' type's name, CloudFormation's custom resource's ServiceToken (an ARN)
    ("        ImagePullCredentialsType: somepulltype", f"        ImagePullCredentials: {GENERATED}", GENERATED),
    ("      ServiceToken: anArn", f"      ServiceToken: {GENERATED}", GENERATED),
    # newly kept: settings about a password (Ansible's)
    ('    password_expire: "never"', '    password: "never"', "never"),
    ('    update_password: "on_create"', '    new_password: "on_create"', "on_create"),
    # newly found: a provider's token name in a Kubernetes env entry
    ('env:\n- name: FACEBOOK_TOKEN_URL\n  value: "https://graph.example.com/oauth"',
     'env:\n- name: FACEBOOK_TOKEN\n  value: "Fb4kQ9zLmW2xRt7pVn3s"', "Fb4kQ9zLmW2xRt7pVn3s"),
    # newly found: a value under its parent's secret name
    ("properties:\n  proxy-user:\n    value: mzq7ka21\n    description: ''",
     "properties:\n  proxy-password:\n    value: mzq7ka21\n    description: ''", "mzq7ka21"),
    ("settings:\n  password-policy:\n    value: strict", "settings:\n  db-password:\n    value: strict", "strict"),
    ('settings:\n  db-password:\n    value: "{{ vault_db_password }}"',
     'settings:\n  db-password:\n    value: "hunter2x"  # set by ops', "hunter2x"),
    # newly found: few last characters that do not repeat (a filler's end repeats: `…1D1D1D1D`)
    ('  api_key = "4e8e8ehjkrwzq1D1D1D1D1D1D1D1D1D1D"', '  api_key = "4e8e8ehjkrwzqmmm56e545e5445e545454e54"',
     "4e8e8ehjkrwzqmmm56e545e5445e545454e54"),
]

KEPT = [
    # a child `value:` of code under a secret's name, a value not more indented than the name
    "class Password:\n    value: str",
    "password:\nvalue: abc",
    # a filler's end: a run, a unit repeated
    '  api_key = "Zq8vN3xL0pR7aaaaaaaaaaaaaaaa"',
    '  token = "glc_1111111111111111111111"',
]

REDACTED_CASES = [
    # a provider's token name holds a token whatever it looks like
    ('FACEBOOK_TOKEN = "my-fb-graph-token-2024"', "my-fb-graph-token-2024"),
    # a parent's secret name over a quoted value
    ("db:\n  admin-password:\n    value: 'Tr0ub4dor&3'", "Tr0ub4dor&3"),
]

test_a_look_alike_is_kept_and_its_twin_redacted = pair_test(PAIRS)
test_a_look_alike_is_kept, test_a_secret_is_redacted = round_tests(KEPT, REDACTED_CASES)
