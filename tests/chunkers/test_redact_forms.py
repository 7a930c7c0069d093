"""Secret forms added after gitleaks' rule tests (benchmarks/secrets_recall.py, the
development corpus): each family with a positive (a fake secret, redacted) and a
negative (a look-alike of the same shape, kept). The provider-token rows of the
rule table have theirs in tests/fixtures/secrets/rules/examples.json."""

from __future__ import annotations

import pytest

from chunkers.redact import REDACTED, redact_text, redact_value

# (family, line, the secret it plants)
POSITIVES = [
    # curl credentials: each side quoted, an empty user, an API key as the user with no password
    ("curl_user", "curl --user kevin:'pRf7vG2h1L8nQkW9' -X PATCH https://x", "pRf7vG2h1L8nQkW9"),
    ("curl_user", 'curl -X POST --user "{acd3c08b}":"{ZqL5kVrX1n8tA2}" https://x', "ZqL5kVrX1n8tA2"),
    ("curl_user", 'curl -u ":d2LkV78zLx!t" https://localhost:9200', "d2LkV78zLx!t"),
    ("curl_user", "curl https://api.stripe.com/v1/charges -u sk9FakeKeyAsUser42:", "sk9FakeKeyAsUser42"),
    # an Authorization header with a scheme it does not know, or none
    ("auth_header", 'curl -H "Authorization: Api-Token 22cb987851bc5659f29114c62e60c79abd0d2c08" https://x',
     "22cb987851bc5659f29114c62e60c79abd0d2c08"),
    ("auth_header", "curl --header  'Authorization:  5eb4223e-5008-46e5-be67-c7b8f2732305'",
     "5eb4223e-5008-46e5-be67-c7b8f2732305"),
    ("auth_header", 'curl -L -H "Authorization: sha256~bRLFnzd5@=-.a+/hgdS"', "bRLFnzd5@=-.a+/hgdS"),
    # a secret-named header given to curl
    ("header_flag", 'curl -X POST --header "Api-Token: Sk94HG7f6KB" https://x', "Sk94HG7f6KB"),
    ("header_flag", 'curl -H "X-Octopus-ApiKey: 3a16750d-d363-41a4-8ebd-035408f7730f" https://x',
     "3a16750d-d363-41a4-8ebd-035408f7730f"),
    ("header_flag", 'curl -H "Token: 3fea6af1349166ea" https://x', "3fea6af1349166ea"),
    # Makefile assignments
    ("make_assign", 'SNYK_TOKEN ?= "12345678-ABCD-ABCD-ABCD-1234567890AB"', "12345678-ABCD-ABCD-ABCD-1234567890AB"),
    ("make_assign", 'SNYK_TOKEN ::= "8c1e7b2a-FAKE-4d7e-9b1a-0c2d4e6f8a1b"', "8c1e7b2a-FAKE-4d7e-9b1a-0c2d4e6f8a1b"),
    # a generated value under a `…_LOGIN` / `…_auth` name
    ("weak_name", 'SONAR.LOGIN ?= "9f3Kx81QmZ4tB7wLp2R6yN0cV5hJ"', "9f3Kx81QmZ4tB7wLp2R6yN0cV5hJ"),
    ("weak_name", '"user_auth": "am9obmRvZTpkMDY5NGIxYi1jMTcxLTQ4ODYt+TMyYS0wMmUwOWQ1/mIwNjc="',
     "am9obmRvZTpkMDY5NGIxYi1jMTcxLTQ4ODYt+TMyYS0wMmUwOWQ1/mIwNjc="),
    # `creds`, an ini value shaped like a name but generated, `=` inside a config value
    ("creds", "creds = 1CRzxftd4wdp3yw8PyJJTyOyxBvdeE", "1CRzxftd4wdp3yw8PyJJTyOyxBvdeE"),
    ("ini_generated", "todo_secret_do_not_commit = RudJmQ0jrTEwwrQRQlY2yjvZ0XT7Tb", "RudJmQ0jrTEwwrQRQlY2yjvZ0XT7Tb"),
    ("config_equals", "private-key: sya1mjXjMeninF4-byDAsKsu=kONTMER_5cJLw3qXfBhUq", "sya1mjXjMeninF4-byDAsKsu=kONTMER_5cJLw3qXfBhUq"),
    ("config_equals", "password: Xk9fakeQ2w  # rotate me", "Xk9fakeQ2w"),
    # Slack: a legacy workspace token, a bot token, a GitHub fine-grained token in lower case
    ("slack", '"access_token1": "xoxa-8-2cepysmd4b24', "2cepysmd4b24"),
    ("slack", "xoxb-781236542736-2364535789652-GkwFDQoHqzXDVsC6GzqYUypD", "GkwFDQoHqzXDVsC6GzqYUypD"),
    ("github_pat", 'value = "github_pat_z8hjen46au66d8xzhliwp0h0cljp6rsx4xw1zjzjw8dhf1xh7embd40dozun43qy32m"',
     "github_pat_z8hjen46au66d8xzhliwp0h0cljp6rsx4xw1zjzjw8dhf1xh7embd40dozun43qy32m"),
    # two hints that overlap (`sk_` and `k_prod_`): both rules run
    ("overlapping_hints", 'value = "sk_prod_ebkvicbp8jpnqehs0kn1bymp43blzmfb7toyqa50xnhb"',
     "ebkvicbp8jpnqehs0kn1bymp43blzmfb7toyqa50xnhb"),
    # `%R` in a token is no format hole (`%s`, `%d`, `%r` are)
    ("format_case", 'twitter_api_token = "AAAAAAAAAAAAAAAAAAAAA2maxJiJ435g9ChSsTH4YzX0aH6%Vj%RhKosXMXObbenbhd"',
     "2maxJiJ435g9ChSsTH4YzX0aH6%Vj%RhKosXMXObbenbhd"),
    # Vault's AppRole secret_id is a secret, though `credentialsId` names one
    ("secret_id", "secret_id = '87654321-4321-4321-4321-CBA987654321'", "87654321-4321-4321-4321-CBA987654321"),
    # rows of the rule table widened after trufflehog's detector tests: any lowercase alphanumerics (not only hex),
    # a key of 59 characters, a longer Octopus key, an OpenAI key with its account's name before the marker
    ("widened_row", 'value = "bkua_hqlh73m51jtho0jh12wcf2758c8fcdbv05z0fake"', "bkua_hqlh73m51jtho0jh12wcf2758c8fcdbv05z0fake"),
    ("widened_row", 'value = "FLWSECK-aylhdv2oo3wf5tylj8s4d9bqb8fakebx-X"', "FLWSECK-aylhdv2oo3wf5tylj8s4d9bqb8fakebx-X"),
    ("widened_row", 'value = "PMAK-aMUVdak2ohpOeeJQVlb1G9EWB09YVQfbvH6YH8HpPRkXHPBg5qYvFAKEhI7"',
     "PMAK-aMUVdak2ohpOeeJQVlb1G9EWB09YVQfbvH6YH8HpPRkXHPBg5qYvFAKEhI7"),
    ("widened_row", 'value = "API-1234567890FAKEGHIJKLMNO1234"', "API-1234567890FAKEGHIJKLMNO1234"),
    ("widened_row", 'value = "sk-service-account-name-Ofbtr05CFsJqs4TFAKECT3BlbkFJsh1KtN0SUjTPeJiaglyC"',
     "sk-service-account-name-Ofbtr05CFsJqs4TFAKECT3BlbkFJsh1KtN0SUjTPeJiaglyC"),
    # a connection string's `Secret=` part (Azure App Configuration)
    ("conn_string", "Endpoint=https://acme.azconfig.io;Id=Ab1c-l0-s0:Xy12;Secret=FakeAppConfigSecret0123456789abcdef=",
     "FakeAppConfigSecret0123456789abcdef="),
    # third round (secretlint's snapshots and detect-secrets' plugin tests, development corpora since then):
    # Shopify's newer keys of any letters and digits, Cloudflare's account token
    ("widened_row", "shpss_Fq7TnZ2kLw9XrB4sVc1MhJ8pDy3GaE6uKx", "shpss_Fq7TnZ2kLw9XrB4sVc1MhJ8pDy3GaE6uKx"),
    ("widened_row", "the app signs in with shpat_r2FAKEkVm8Tq3LzW9nXc4BpJ7yHd1Gs6 for now", "shpat_r2FAKEkVm8Tq3LzW9nXc4BpJ7yHd1Gs6"),
    ("widened_row", "cfat_FAKEk3Lm9Qr2Tz7Wx4Bc8Nd1Gh6Jp5Sv0Yf3Ua7Kb9e4c2d1", "cfat_FAKEk3Lm9Qr2Tz7Wx4Bc8Nd1Gh6Jp5Sv0Yf3Ua7Kb9e4c2d1"),
    # a secret-named literal in a comparison, and in a C++ string's constructor
    ("comparison", 'if (secret == "Zq8fakeS3cretV4lue!") {', "Zq8fakeS3cretV4lue!"),
    ("comparison", "if db_password != 'Fake9Pass!word':", "Fake9Pass!word"),
    ("comparison", 'if (apiKey === "FAKEk3y9ZqL2mNxR") return;', "FAKEk3y9ZqL2mNxR"),
    ("comparison", 'if (password.equals("Fake7Passw0rd")) {', "Fake7Passw0rd"),
    ("comparison", 'return "Fake8Passw0rd".equalsIgnoreCase(userPassword);', "Fake8Passw0rd"),
    ("comparison", 'if auth_token == "x9FkQ2mLp7Rt4ZwB":', "x9FkQ2mLp7Rt4ZwB"),
    ("constructor", 'std::string secret("m{fake}o)p$#Cpp9S3cret");', "m{fake}o)p$#Cpp9S3cret"),
    ("constructor", 'const std::string api_key{"FAKEk3yCpp9ZqL2m"};', "FAKEk3yCpp9ZqL2m"),
    ("constructor", 'QString password("Fake7QtPass");', "Fake7QtPass"),
    ("constructor", 'std::wstring client_secret(L"FakeW1deS3cret");', "FakeW1deS3cret"),
    # a raw private key in prose under a private key's name, with `0x` or without
    ("hex_private_key", "PRIVATE KEY (hex): 8f3a61c09be24d7715a0c3e98b4f26d1e07c5a93f2b81d64c0e7a35f9d12b84e",
     "8f3a61c09be24d7715a0c3e98b4f26d1e07c5a93f2b81d64c0e7a35f9d12b84e"),
    ("hex_private_key", "- signing key: 0x3c9e07b5a1f24d8e6b0c97a3f5e21d48c6b09a7e3f15d2c84a6e0b97f3c5d21a",
     "3c9e07b5a1f24d8e6b0c97a3f5e21d48c6b09a7e3f15d2c84a6e0b97f3c5d21a"),
    # a JWT of two parts (no signature) in a URL's query
    ("jwt_two_part", "https://x.test/cb?jwt=eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJGYWtlVXNlcjQyIn0&next=/",
     "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJGYWtlVXNlcjQyIn0"),
]

# (family, line): look-alikes of the families above, kept as they are
NEGATIVES = [
    ("curl_user", "curl -i -u 'test:test' https://x"),
    ("curl_user", "curl -u <user:password> https://test.com/endpoint"),
    ("curl_user", "curl --user neo4j:[PASSWORD] http://[IP]:7474/db/data/"),
    ("curl_user", 'curl --user "xxx:yyy"'),
    ("curl_user", "curl http://127.0.0.1:5000/file --user user:pass --digest"),
    ("curl_user", "curl -u admin: https://x"),
    ("curl_user", "docker run -u 1000:1000 app"),
    ("auth_header", "Authorization: Required for every endpoint"),
    ("auth_header", '_http.DefaultRequestHeaders.Authorization = new AuthenticationHeaderValue("Bearer", token);'),
    ("header_flag", 'curl -H "X-Api-Key: $API_KEY" https://x'),
    ("header_flag", 'curl -H "Content-Type: application/json" https://x'),
    ("header_flag", 'curl -H "X-Api-Key-Name: primary" https://x'),
    ("make_assign", 'SNYK_TOKEN ?= "$(shell cat .snyk-token)"'),
    ("weak_name", 'user_login = "jsmith"'),
    ("weak_name", 'default_auth = "oauth2-client-credentials"'),
    ("creds", "credentialsId: 'ff083f76-7804-4ef1-80e4-fe975bb9141b'"),
    ("creds", 'environment {\n\tCREDENTIALS_ID = "K8S_CRED"\n}'),
    ("creds", "dev.credentials.url=dev-lb1.api.f4ke.com:5215"),
    ("creds", "    gss_deleg_creds: bool | None  # Delegate GSS-API client credentials"),
    ("ini_generated", "api_key = self.api_key"),
    ("ini_generated", "token = token_or_none"),
    ("config_equals", "password: str = Field(default=None)"),
    ("config_equals", "    token: str | None  # GitHub personal access token"),
    ("config_equals", "TOKEN_PATH = \"/token\""),
    ("slack", "xoxb-12345-abcd234"),
    ("slack", "xoxe.xoxp-1-SlackAppConfigurationAccessTokenHere"),
    ("slack", '"token4": "xoxp-572370529330-573807301142-572331691188-####################"'),
    ("not_secret_name", 'publicToken = "9Cnzj4p4WGeKLs1Pt8QuKUpRKfFLfRYC9AIKjbJTWit"'),
    ("not_secret_name", '<SourceFile SourceLocation="F:\\Extracts\\" TokenFile="RTL_INST_CODE.cer">'),
    ("not_secret_name", '<input type="hidden" name="authenticity_token" value="7SWa-Fo1_hsC6oovfBsJFLGPUl2EhkSW" />'),
    # placeholders where a form expects a secret
    ("filler", 'apiKey: "AIzaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"'),
    ("filler", "sntryu_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"),
    ("filler", "GR134894112312312312312312312"),
    ("filler", 'API_KEY="glc_111111111111111111111111111111111111111111="'),
    ("doc_example", "ABSKQmVkcm9ja0FQSUtleS1EXAMPLEEXAMPLEEXAMPLEEXAMPLEEXAMPLEEXAMPLEEXAMPLEEXAMPLEEXAMPLEEXAM"),
    ("cli_placeholder", "oc login --token=sha256~_xxxxxx_xxxxxxxxxxxxxxxxxxxxxx-xxxxxxxxxx-X --server=https://x"),
    ("cli_placeholder", "oc login --token=sha256~<token>"),
    ("backtick_command", "-e SUMO_ACCESS_KEY=`etcdctl get /sumologic_secret`"),
    ("infracost", "http://assets.r7.com/assets/video_box.ico-7a388b69018576d24b59331fd60aab0c.png"),
    ("facebook_app_token", "x: str | None = None  # the bar of a type union is no token's"),
    # a Notion page's slug in a URL is no Octopus key, `sk-` and an account name no OpenAI key without the marker
    ("widened_row", "https://fog-ringer-f42.notion.site/API-BD80F56CDC1441E6BF6011AB6D852875"),
    ("widened_row", "sk-service-account-name-for-the-docs"),
    # a connection string's template: its parts say where the values go
    ("conn_string", "Host=your_host; Port=5432; Database=your_database; Username=your_username; Password=your_password;"),
    ("conn_string", "Server=db;Database=app;User Id=${DB_USER};Password=${DB_PASS};"),
    # third round: a Shopify-prefixed name with no digit, a Cloudflare prefix too short
    ("widened_row", "shpat_accessTokenForThePublicShopifyApp"),
    ("widened_row", "cfat_tooshort"),
    # a comparison with no secret in it: a lexer's token, an empty or templated password, a token's type
    ("comparison", 'if token == "EOF":'),
    ("comparison", 'if (password == "") {'),
    ("comparison", 'if (password == "${DB_PASSWORD}")'),
    ("comparison", 'if token_type == "bearer":'),
    ("comparison", 'if (key == "Enter") {'),
    ("comparison", "assert password.equals(confirmPassword);"),
    # a lexer's token compared with a literal (seen in real code: transformers, sympy, CodeMirror)
    ("comparison", 'if mask_token != "None":'),
    ("comparison", 'if token == "]]" and open_seq[-1] == "[":'),
    ("comparison", 'if bpe_token == "\\u0120" and "[SPACE]" in self.encoder'),
    ("comparison", "var n=e.sol()&&t.lastToken!=`\\\\`;"),
    ("comparison", 'if (token.equals("<=")) {'),
    ("comparison", 'if storage_key.device.type != "cpu":'),
    ("constructor", 'std::string secret_name("db-password");'),
    ("constructor", 'std::string token("EOF");'),
    ("constructor", 'std::string password(buffer, len);'),
    # a hash or a public value near a private key's name, a hash with no key's name, a longer hex run
    ("hex_private_key", "the private key's SHA-256 fingerprint is 8f3a61c09be24d7715a0c3e98b4f26d1e07c5a93f2b81d64c0e7a35f9d12b84e"),
    ("hex_private_key", "secret key derived, public address 0x3c9e07b5a1f24d8e6b0c97a3f5e21d48c6b09a7e3f15d2c84a6e0b97f3c5d21a"),
    ("hex_private_key", "tx 0x3c9e07b5a1f24d8e6b0c97a3f5e21d48c6b09a7e3f15d2c84a6e0b97f3c5d21a signed"),
    ("hex_private_key", "private key, then 66 digits: 033c9e07b5a1f24d8e6b0c97a3f5e21d48c6b09a7e3f15d2c84a6e0b97f3c5d21a"),
    ("hex_private_key", "private key: 0000000000000000000000000000000000000000000000000000000000000000"),
    # two base64 parts glued to a character no JWT holds: a fragment of something else
    ("jwt_two_part", "blob = 'eyJhbGciOiJIUzI1NiJ9.eyJ5nzGXjcjJ2CaJVf8LF1cNVd07A?XSYHvHK1MQMuum'"),
]


@pytest.mark.parametrize("family, line, secret", POSITIVES, ids=[f"{p[0]}-{i}" for i, p in enumerate(POSITIVES)])
def test_a_form_is_redacted(family, line, secret):
    out = redact_text(line)
    assert secret not in out and REDACTED in out, (family, out)
    assert out.count("\n") == line.count("\n")
    assert redact_text(out) == out


@pytest.mark.parametrize("family, line", NEGATIVES, ids=[f"{n[0]}-{i}" for i, n in enumerate(NEGATIVES)])
def test_a_look_alike_is_kept(family, line):
    assert redact_text(line) == line


def test_every_family_has_a_positive_and_a_negative():
    pos = {p[0] for p in POSITIVES} - {"overlapping_hints", "format_case", "github_pat", "secret_id"}
    neg = {n[0] for n in NEGATIVES} - {"filler", "doc_example", "cli_placeholder", "backtick_command", "infracost",
                                       "not_secret_name", "facebook_app_token"}
    assert pos == neg


def test_parsed_settings_keep_a_reference_to_a_credential_and_a_filler():
    # the config chunkers' path: `credentialsId` names a stored credential, `aaaa…` fills a sample
    assert redact_value(("pipeline", "credentialsId"), "29f63271-dc2f-4734-8221-5b31b5169bac") != REDACTED
    assert redact_value(("google", "apiKey"), "AIzaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa") != REDACTED
    assert redact_value(("vault", "secret_id"), "87654321-4321-4321-4321-CBA987654321") == REDACTED
