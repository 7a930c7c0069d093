"""Fifty-sixth round, after real code no rule was written from (the test suites and sources of seven public
repositories: openai-python, requests, full-stack-fastapi-template, llm, spring-petclinic, stripe-python,
sentry-python): look-alikes kept, each beside a twin that is still redacted. Values are made up here but for the
look-alikes quoted from those repositories."""

from tests.chunkers.redact_asserts import round_tests

GENERATED = "Zq8vK2pLm9Xc4Rt7"
KEPT = [
    # a package pinned to a version under a tox factor holding `tiktoken`
    "py3.9-langchain-notiktoken-v0.1.20: langchain==0.1.20",
    "py3.11-langchain-notiktoken-v0.1.20: backports.asyncio.runner==1.2.0",
    # Python's annotation as a string
    '    secret_key: "Optional[str]" = None,',
    'def reset(self, token: "Any") -> None:',
    # a name whose last word says it is an address or a placeholder
    '_X509_TOKEN_EXCHANGE_URL = "https://mtls.auth.openai.com/oauth/token"',
    'tokenEndpoint: "https://auth.example.com/oauth/token"',
    'WORKLOAD_IDENTITY_API_KEY_PLACEHOLDER = "workload-identity-auth"',
    # where a credential comes from, a request's idempotency key, a build secret's mount
    'elif credential_source == "token_provider":',
    'idempotency_key="KG5LxwFBepaKHyUD",',
    "# Build with: docker build --secret id=npm_token,src=.npmrc .",
    # a provider's prefix and words
    'api_key="sk_test_iter_forwards_options",',
    # a storage slot's prefix the code completes
    'x({localStorageKey:"asset-graph-open-graph-nodes-".concat(x)})',
    # a Basic scheme's base64 of a syntax's words ("user:pass", "user:password") or of no password ("user:")
    'assert headers == {"Proxy-Authorization": "Basic dXNlcjpwYXNz"}',
    'assert headers == {"Proxy-Authorization": "Basic dXNlcjo="}',
    "Authorization: Basic dXNlcjpwYXNzd29yZA==",
]

REDACTED = [
    ('py3.9-langchain-notiktoken-v0.1.20: ' + GENERATED, GENERATED),
    ('password = "pass==1234"', "pass==1234"),  # no dotted version: a password
    ('    secret_key: str = "' + GENERATED + '",', GENERATED),
    ('_X509_TOKEN = "' + GENERATED + '"', GENERATED),
    ('TOKEN_URL = "https://ops:' + GENERATED + '@auth.example.com/token"', GENERATED),  # its credentials by form
    ('credential = "' + GENERATED + '"', GENERATED),
    ("docker build --secret " + GENERATED + " .", GENERATED),
    ('api_key="sk_test_' + GENERATED + GENERATED + '",', GENERATED),
    ('token_curl = "' + GENERATED + '"', GENERATED),  # `curl` is no address's word
    ("Authorization: Basic YWRtaW46WnE4dksycExtOVhjNFJ0Nw==", "YWRtaW46WnE4dksycExtOVhjNFJ0Nw=="),  # admin:<generated>
    ("log: Basic dXNlcjpXcTh2SzJwTG05WGM0UnQ3 sent", "dXNlcjpXcTh2SzJwTG05WGM0UnQ3"),  # user:<generated>
    # another user with no password: the user may be the key (gitleaks' curl case, "browser:")
    ("curl -H 'Authorization: Basic YnJvd3Nlcjo=' \\", "YnJvd3Nlcjo="),
]

test_a_look_alike_is_kept, test_a_secret_is_redacted = round_tests(KEPT, REDACTED)
