"""Fifty-first round, after redact-secret/redact-secret-benchmarks' fixture corpora (held out for the round's first
figure): references a config makes to the environment, a file or a secret store, a URL's password that says where
one goes, and a provider's prefix on a body too short for its form are kept; Slack, PyPI, Linear and Supabase
tokens of a longer or simpler body than their rows knew are redacted. Values are made up here."""

from tests.chunkers.redact_asserts import round_tests

MIX = "Qz7k2Wp9mN4rT8vX"  # 16 characters, both cases and digits
KEPT = [
    'api_key: os.environ/ANTHROPIC_API_KEY',  # LiteLLM's reference to the environment
    '{"apiKey": "{env:OPENAI_API_KEY}"}',  # opencode's
    '{"token": "{file:~/.secrets/gh-token}"}',
    'password: ref+vault://team/database#/password',  # vals' reference to a secret store
    'secret = "ref+awssecrets://prod/db"',
    'postgres://app:your_password_here@db.internal/app',
    'DATABASE_URL=mysql://root:REPLACE_ME_PASSWORD@localhost/app',
    'redis://cache:TODO_SET_PASSWORD@redis:6379/0',
    'mongodb://admin:insert-password-here@mongo/admin',
    'GITHUB_TOKEN=ghp_abc123',
    'GITLAB_TOKEN=glpat-abc123',
    'NPM_TOKEN=npm_abc123',
    'SENDGRID_API_KEY=SG.abc.def',
    'SLACK_BOT_TOKEN=xoxb-123-456-abc',
    'xoxb-not-a-real-token-used-in-docs-only',
    'pypi-simple-index-mirror-of-the-packages-used-by-the-build-and-its-tests-and-docs',
    'lin_oauth_token_url = "https://api.linear.app/oauth/token"',
]

REDACTED = [
    ("SLACK_BOT_TOKEN=xoxb-" + MIX * 3, "xoxb-" + MIX * 3),
    ('slack = "xoxe.xoxp-' + MIX * 3 + '"', "xoxe.xoxp-" + MIX * 3),
    ("app_token: xapp-" + MIX * 3, "xapp-" + MIX * 3),
    ("xwfp-" + MIX * 3, "xwfp-" + MIX * 3),
    ("password = pypi-" + MIX * 5, "pypi-" + MIX * 5),
    ("LINEAR = 'lin_oauth_" + MIX * 3 + "'", "lin_oauth_" + MIX * 3),
    ("SUPABASE_KEY = 'sb_secret_" + MIX * 2 + "Qz7k2Wp9'", "sb_secret_" + MIX * 2 + "Qz7k2Wp9"),
    # a password's name keeps even a short value after a provider's prefix (the twelfth round's policy)
    ("DB_PASSWORD=ghp_abc123", "ghp_abc123"),
    # a token's name with a body long enough to be one
    ("GITHUB_TOKEN=ghp_" + MIX + "abcd", "ghp_" + MIX + "abcd"),
    ("postgres://app:" + MIX + "@db.internal/app", MIX),
]

test_a_look_alike_is_kept, test_a_secret_is_redacted = round_tests(KEPT, REDACTED)
