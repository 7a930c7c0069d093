"""Hundred-and-third round: a secret's name and value as a call's last two arguments after one other (a Terraform
test's `TestCheckResourceAttr(resourceName, "password", "…")`, configparser's `config.set("db", "password", "…")`,
Redis' `hset(key, "password", "…")`), left by round 101; and the look-alikes six held-out readings of twenty-nine
repositories' real code found (figures: benchmarks/secrets_recall.md, round 103). Values made up where a secret is
meant."""

from chunkers.redact import REDACTED, redact_text
from tests.chunkers.redact_asserts import GENERATED, bodies, pair_test, round_tests

KEPT = [
    # a tuple's or a list's items are names, not a call's pair: the `(` follows no name
    'fields = ("username", "password", "email")',
    "fields = ['id', 'password', 'first_name']",
    'return (user, "password", "Tr0ub4dor&3x")',
    # the value must close the call: with an argument after it, a pair by position is too unsure a reading
    'out = strings.Replace(s, "password", "Zq8vN3xL0pR7", -1)',
]

REDACTED_CASES = [
    # by position: a resource's name, then the attribute's name and its expected value
    ('\t\t\t\tresource.TestCheckResourceAttr(resourceName, "password", "Sup3r-Secr3t-pw"),', "Sup3r-Secr3t-pw"),
    ('\t\t\tresource.TestCheckResourceAttr(resourceName, "secret_key", "8Q2WfTxLr9Vm4KpZs7HcJd3NbYg6EaRu0oPiLkMn"),',
     "8Q2WfTxLr9Vm4KpZs7HcJd3NbYg6EaRu0oPiLkMn"),
    # (an attribute's path through a block's index, judged by its last part)
    ('\tresource.TestCheckResourceAttr("x_check.http", "settings.0.http.0.bearer_token", "asdf;jkl9"),', "asdf;jkl9"),
    ('\tresource.TestCheckResourceAttr(fqrn, "replication.1.password", "Passw0rd!"),', "Passw0rd!"),
    # configparser's section, option and value; a Redis hash's key, field and value; PHP's
    ('config.set("database", "password", "Tr0ub4dor&3")', "Tr0ub4dor&3"),
    ("parser.set('auth', 'api_key', 'k-93hf8Qw2LmZt7Rx')", "k-93hf8Qw2LmZt7Rx"),
    ('r.hset(key, "password", "S3cret!Value")', "S3cret!Value"),
    ("$redis->hSet($key, 'password', 'Hunter2-Redis!');", "Hunter2-Redis!"),
    # a test's value of eight digits or more stays a secret's
    ('\tresource.TestCheckResourceAttr("tfe_notification.foobar", "token", "1234567890"),', "1234567890"),
]

test_a_look_alike_is_kept, test_a_secret_is_redacted = round_tests(KEPT, REDACTED_CASES)

PAIRS = [
    # by position the name is less sure to be one: a word of lower-case letters, a name of them joined by `_`, an
    # upper-case constant, a short number or a version is kept (a resource's type and its name; an HMAC's key and
    # data; three fields' names; a policy's setting)
    ('\tdata := acceptance.BuildTestData(t, "azuread_application_password", "test")',
     f'\tdata := acceptance.BuildTestData(t, "azuread_application_password", "{GENERATED}")', GENERATED),
    ('\tsha := genSha(t, "secret", "data")', f'\tsha := genSha(t, "secret", "{GENERATED}")', GENERATED),
    ('\tssoValidateInterdependencyXOR("client_id", "client_secret", "token_url"),',
     f'\tssoValidateInterdependencyXOR("client_id", "client_secret", "{GENERATED}"),', GENERATED),
    ('\tresource.TestCheckResourceAttr(dataSourceName, "password_change", "ALLOW"),',
     f'\tresource.TestCheckResourceAttr(dataSourceName, "password_change", "{GENERATED}"),', GENERATED),
    ('\tresource.TestCheckResourceAttr(resourceName, "okta_password.enroll", "REQUIRED"),',
     f'\tresource.TestCheckResourceAttr(resourceName, "okta_password.enroll", "{GENERATED}"),', GENERATED),
    ('\tresource.TestCheckResourceAttr(resourceName, "token_binding", "HTTP-POST"),',
     f'\tresource.TestCheckResourceAttr(resourceName, "token_binding", "{GENERATED}"),', GENERATED),
    ('\tresource.TestCheckResourceAttr(resourceName, "breached_password_workflow_id", "1074260"),',
     f'\tresource.TestCheckResourceAttr(resourceName, "breached_password_workflow_id", "{GENERATED}"),', GENERATED),
    ('self.signer = RequestSignerV1_0("testid", "testsecret", "1.0")',
     f'self.signer = RequestSignerV1_0("testid", "testsecret", "{GENERATED}")', GENERATED),
    # an attribute's path through a block's index is judged by its last part, not by a block's name before it
    ('\tresource.TestCheckResourceAttr("github_repository.test", "security_and_analysis.0.secret_scanning.0.status", '
     '"enabled"),',
     '\tresource.TestCheckResourceAttr("github_repository.test", "security_and_analysis.0.secret_scanning.0.token", '
     f'"{GENERATED}"),', GENERATED),
    ('\tresource.TestCheckResourceAttr(resourceName, "spec.0.volume.0.secret.0.items.0.key", "one"),',
     f'\tresource.TestCheckResourceAttr(resourceName, "spec.0.volume.0.secret.0.items.0.password", "{GENERATED}"),',
     GENERATED),
    # where tokens are read from (a list's item: its attribute is the list's name)
    ('\tresource.TestCheckResourceAttr(resourceName, "token_sources.0", "http.request.headers[\\"x-auth\\"][0]"),',
     f'\tresource.TestCheckResourceAttr(resourceName, "client_secret.0", "{GENERATED}"),', GENERATED),
    # a key's size in bits, in any form (a password's word in the name too)
    ('\tresource.TestCheckResourceAttr(resourceName, "credential_config.key_bits", "2048"),',
     f'\tresource.TestCheckResourceAttr(resourceName, "credential_config.key", "{GENERATED}"),', GENERATED),
    ('default_tls_client_key_bits = "4096"', f'default_tls_client_key = "{GENERATED}"', GENERATED),
    # a page's element that a password is typed in; a JWT's subject (a user)
    ('  password_selector = "pass1"', '  password = "pass1"', "pass1"),
    ('{"passwordSelector":"pass1","usernameSelector":"user1"}', '{"password":"pass1","usernameSelector":"user1"}',
     "pass1"),
    ('global_token_revocation_jwt_sub = "user123"', f'global_token_revocation_jwt = "{GENERATED}"', GENERATED),
]

test_a_look_alike_is_kept_and_its_twin_redacted = pair_test(PAIRS)


def test_a_settings_files_selector_is_kept():
    """An app's sign-in form's selectors in a recorded API answer (okta's VCR cassettes) are kept whole."""
    text = '{"settings":{"app":{"passwordSelector":"pass1","usernameSelector":"user1","buttonSelector":"btn1"}}}\n'
    assert "pass1" in bodies("fixture.json", text)
