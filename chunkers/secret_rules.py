"""Secrets known by their form: one row per provider token, webhook, key file
line or command-line password, as data.

A row is (id, hint, pattern). `hint` is one or more literals (`|` between them,
any case; a tuple where a literal holds `|`; a leading `=` makes them
case-sensitive: `=SK` is not `sk`, which half the lines of code hold) that the
whole-text scan looks for; only lines holding one are matched against `pattern`.
A hint `~regex` (or a tuple of them) is a case-sensitive regex instead, for a form
with no rare literal (`…|` after digits: a bar alone is in every type union); one
that starts with a literal keeps the whole-text scan fast. `pattern`'s group `s` is the
secret (the whole match where it has none). `secret_tokens._rule_value_kept` keeps a
placeholder (`xxxx`, `<token>`, `$VAR`, a documented `...EXAMPLE` value).
tests/fixtures/secrets/rules/examples.json holds a positive and a negative
example of every row. `_RULES`, at the end, is the table compiled (each row's
hints as literals, its pattern) for secret_tokens.py's scans.
"""

from __future__ import annotations

import base64
import re

# Start and end of a token: no word character (or `-`) glued to it.
# (a redaction glued before or after is no boundary: it stands for a secret's characters, so that a second pass
# keeps what the first kept)
_B = r"(?<![A-Za-z0-9_])(?<!\[REDACTED\])"
_E = r"(?![A-Za-z0-9_]|\[REDACTED\])"
_ED = r"(?![A-Za-z0-9_-]|\[REDACTED\])"
_HEX = "[a-f0-9]"
# A mixed-case alphanumeric body after a prefix that identifiers also use (`aio_`, `NF-`): it holds a
# digit and an uppercase letter.
_MIX = r"(?=[A-Za-z0-9]*[0-9])(?=[A-Za-z0-9]*[A-Z])"
# A value on a command line: quoted, or up to a blank or a shell operator; never a variable.
_ARG = r"""(?:(?P<q>["'])(?P<s>[^"'\s$%{<][^"'\n]*)(?P=q)|(?P<s2>[^\s"'$%{<;|&`)][^\s"'`;|&)]*))"""

# The password hashes' one hint regex (one scan for all their rows; no `$` among the first characters of the
# literal hints' trie): crypt(3)'s `$id$` (`$md5,` for Sun's MD5 with its rounds).
_CRYPT_HINT = ("~\\$(?:[1256789]|2[abxy]|krb5asrep|apr1|g?y|md5)\\$|\\$md5,",)


# The base64 of a PEM private key's first line (`-----BEGIN RSA PRIVATE KEY-----` as `LS0tLS1CRUdJTiBSU0Eg…`, a
# Kubernetes Secret's `tls.key`, a CI variable): each header's bytes up to `KEY`, cut to a multiple of three, encode
# to a fixed prefix (PGP's `… KEY BLOCK-----` too). A certificate's or a public key's header (`LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0t`) is none of them.
_B64_PEM_PREFIXES = tuple(
    base64.b64encode(h[:len(h) // 3 * 3]).decode()
    for h in (f"-----BEGIN {kind}PRIVATE KEY".encode()
              for kind in ("", "RSA ", "EC ", "DSA ", "OPENSSH ", "ENCRYPTED ", "PGP ")))


def _tok(prefix: str, body: str, end: str = _E) -> str:
    return _B + prefix + body + end


# PowerShell's common verbs, a cmdlet's first word (`Copy-Item`, `ConvertFrom-Json`)
_PS_VERB = (r"(?:Add|Clear|Compare|Connect|Convert(?:To|From)?|Copy|Disable|Enable|Enter|Exit|Export|Find|"
            r"ForEach|Format|Get|Group|Import|Install|Invoke|Join|Measure|Move|New|Out|Pop|Push|Read|"
            r"Receive|Register|Remove|Rename|Reset|Resolve|Restart|Select|Send|Set|Show|Sort|Split|"
            r"Start|Stop|Tee|Test|Trace|Update|Use|Wait|Where|Write)")


# A quoted name, then `:`, `=>` or `,`, then its quoted value (a dictionary's entry, a call's pair: `'sig': '…'`,
# `params.Add("sig", "…")`); and a name's operator with the quotes around it optional (`"aeg-sas-key": "…"`, `key=…`).
def _quoted_pair(name: str, value: str) -> str:
    return r"(?P<q>[\"'])" + name + r"(?P=q)[ \t]*(?::|=>|,)[ \t]*(?P<vq>[\"'])(?P<s>" + value + r")(?P=vq)"


_PAIR_OP = r"[\"']?[ \t]*(?:=>|[:=,])[ \t]*[\"']?"


RULES: tuple[tuple[str, str, str], ...] = (
    # ---- LLM and model hubs
    ("openai_project", "sk-proj-", _tok(r"sk-proj-", r"[A-Za-z0-9_-]{40,}", _ED)),
    ("openai_service_account", "sk-svcacct-", _tok(r"sk-svcacct-", r"[A-Za-z0-9_-]{40,}", _ED)),
    ("openai_admin", "sk-admin-", _tok(r"sk-admin-", r"[A-Za-z0-9_-]{40,}", _ED)),
    # `T3BlbkFJ` is "OpenAI" in base64; a project or service account's key holds it after its name
    ("openai_legacy", "T3BlbkFJ",
     _tok(r"sk-", r"(?:(?:proj|svcacct|service)-[A-Za-z0-9_-]+|[A-Za-z0-9]{20})T3BlbkFJ[A-Za-z0-9_-]{20,}", _ED)),
    ("openai_style_key", "sk-", _B + r"sk-(?:[a-z]{2,8}-)?(?=[A-Za-z0-9]*[0-9])(?=[A-Za-z0-9]*[A-Za-z])[A-Za-z0-9]{32,}" + _ED),
    ("anthropic", "sk-ant-", _tok(r"sk-ant-(?:api|admin|oat|sid)\d{2,3}-", r"[A-Za-z0-9_-]{40,}", _ED)),
    ("openrouter", "sk-or-v1-", _tok(r"sk-or-v1-", _HEX + "{64}")),
    ("groq", "gsk_", _tok(r"gsk_", r"[A-Za-z0-9]{40,60}")),
    ("huggingface", "hf_", _tok(r"hf_", r"(?=[A-Za-z0-9]*[A-Z])[A-Za-z0-9]{30,40}")),
    ("huggingface_org", "api_org_", _tok(r"api_org_", r"[A-Za-z0-9]{30,40}")),
    ("replicate", "r8_", _tok(r"r8_", r"[A-Za-z0-9]{37,40}")),
    ("perplexity", "pplx-", _tok(r"pplx-", r"[A-Za-z0-9]{40,56}")),
    ("xai", "xai-", _tok(r"xai-", r"(?=[A-Za-z0-9_]{0,89}[0-9])[A-Za-z0-9_]{70,90}")),
    ("fireworks", "fw_", _tok(r"fw_", r"[A-Za-z0-9]{20,40}")),
    ("langsmith", "lsv2_", _tok(r"lsv2_(?:pt|sk)_", _HEX + r"{32}_" + _HEX + r"{10}")),
    ("cerebras", "csk-", _tok(r"csk-", r"[a-z0-9]{40,56}")),
    ("nvidia", "nvapi-", _tok(r"nvapi-", r"[A-Za-z0-9_-]{60,70}", _ED)),
    ("pinecone", "pcsk_", _tok(r"pcsk_", r"[A-Za-z0-9_]{40,90}")),
    # OpenAI's realtime (ephemeral) client secret: hex with letters and digits, not a word after `ek_`
    ("openai_client_secret", "=ek_", _tok(r"ek_", r"(?=[a-f0-9]*[a-f])(?=[a-f0-9]*[0-9])" + _HEX + r"{32}")),
    ("databricks", "dapi", _tok(r"dapi", _HEX + r"{32}(?:-\d)?")),
    ("elevenlabs", "sk_", _tok(r"sk_", _HEX + "{48}")),
    ("tavily", "tvly-", _tok(r"tvly-", r"(?:dev-)?[A-Za-z0-9]{30,40}")),
    ("voyage", "pa-", _tok(r"pa-", r"(?=[A-Za-z0-9_-]*[0-9])[A-Za-z0-9_-]{43}", _ED)),
    # ---- mail and SMS providers
    ("sendgrid", "sg.", _tok(r"SG\.", r"(?:[A-Za-z0-9_-]{20,24}\.[A-Za-z0-9_-]{40,46}|[A-Za-z0-9=_.-]{66})", _ED)),
    ("mailgun", "key-", _tok(r"key-", _HEX + "{32}")),
    ("mailchimp", "-us", _B + _HEX + r"{32}-us\d{1,2}" + _E),
    ("brevo", "xkeysib-", _tok(r"xkeysib-", _HEX + r"{64}-[A-Za-z0-9]{16}")),
    ("brevo_smtp", "xsmtpsib-", _tok(r"xsmtpsib-", _HEX + r"{64}-[A-Za-z0-9]{16}")),
    ("resend", "re_", _tok(r"re_", r"[A-Za-z0-9]{8}_[A-Za-z0-9]{24}")),
    ("mailersend", "mlsn.", _tok(r"mlsn\.", r"[a-f0-9]{64}")),
    ("postmark_header", "x-postmark-",
     r"(?i)X-Postmark-(?:Server|Account)-Token[\"']?\s*[:=,]\s*[\"']?(?P<s>[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})"),
    # ---- registries and package hosts
    ("npm", "npm_", _tok(r"npm_", r"[A-Za-z0-9]{36}")),
    ("pypi", "pypi-AgE", _tok(r"pypi-AgE", r"[A-Za-z0-9_-]{50,}", _ED)),
    # ... and any other `pypi-` token past 70 characters that mixes both cases and digits (one not encoded as PyPI's
    # macaroons are: an upload token of another index, a serialisation of its own)
    ("pypi_other", "pypi-", _tok(r"pypi-", r"(?=[A-Za-z0-9_-]*[0-9])(?=[A-Za-z0-9_-]*[A-Z])(?=[A-Za-z0-9_-]*[a-z])"
                                          r"[A-Za-z0-9_-]{70,}", _ED)),
    ("docker_hub_pat", "dckr_pat_", _tok(r"dckr_pat_", r"[A-Za-z0-9_-]{20,}", _ED)),
    ("docker_hub_oat", "dckr_oat_", _tok(r"dckr_oat_", r"[A-Za-z0-9_-]{20,}", _ED)),
    ("nuget", "oy2", _tok(r"oy2", r"[a-z0-9]{43}")),
    # NuGet's key in capitals: the service takes it whatever the case (microsoft/security-utilities' NuGetApiKey,
    # "uppercase API key, non-standard but accepted"); all of it upper-case, base32 (`A`-`Z`, `2`-`7`), a digit in it.
    # A mixed-case one is no key of this form
    ("nuget_upper", "=OY2", _tok(r"OY2", r"(?=[A-Z2-7]*[2-7])[A-Z2-7]{43}")),
    ("rubygems", "rubygems_", _tok(r"rubygems_", _HEX + "{48}")),
    ("crates_io", "cio", _tok(r"cio", r"(?=[A-Za-z0-9]*[0-9])(?=[A-Za-z0-9]*[A-Z])[A-Za-z0-9]{32}")),
    ("jfrog_api_key", "AKCp", _tok(r"AKCp", r"[A-Za-z0-9]{69}")),
    ("jfrog_reference", "cmVmdGtu", _tok(r"cmVmdGtuOjAxOj", r"[A-Za-z0-9]{40,}")),
    ("clojars", "CLOJARS_", _tok(r"CLOJARS_", r"[a-z0-9]{60}")),
    # ---- source hosts and CI
    ("gitlab_pat", "glpat-", _tok(r"glpat-", r"[A-Za-z0-9_-]{20,}", _ED)),
    ("gitlab_pipeline_trigger", "glptt-", _tok(r"glptt-", _HEX + "{40}")),
    ("gitlab_runner", "glrt-", _tok(r"glrt-", r"[A-Za-z0-9_-]{20,}", _ED)),
    ("gitlab_deploy", "gldt-", _tok(r"gldt-", r"[A-Za-z0-9_-]{20,}", _ED)),
    ("gitlab_feed", "glft-", _tok(r"glft-", r"[A-Za-z0-9_-]{20,}", _ED)),
    ("gitlab_oauth_secret", "gloas-", _tok(r"gloas-", r"[A-Za-z0-9_-]{40,}", _ED)),
    ("gitlab_scim", "glsoat-", _tok(r"glsoat-", r"[A-Za-z0-9_-]{20,}", _ED)),
    ("gitlab_incoming_mail", "glimt-", _tok(r"glimt-", r"[A-Za-z0-9_-]{25}", _ED)),
    ("gitlab_cicd_job", "glcbt-", _tok(r"glcbt-", r"[A-Za-z0-9_-]{20,}", _ED)),
    ("bitbucket_app_password", "ATBB", _tok(r"ATBB", r"[A-Za-z0-9_=.-]{28,}", _ED)),
    ("atlassian_api_token", "ATATT", _tok(r"ATATT", r"[A-Za-z0-9_=.-]{60,}", _ED)),
    ("circleci_personal", "CCIPAT_", _tok(r"CCIPAT_", r"[A-Za-z0-9]{20,26}_[a-z0-9]{40}")),
    ("buildkite", "bkua_", _tok(r"bkua_", r"[a-z0-9]{40}")),
    # ---- cloud and infrastructure
    ("vault_service", "hvs.", _tok(r"hvs\.", r"[A-Za-z0-9_-]{24,}", _ED)),
    ("vault_batch", "hvb.", _tok(r"hvb\.", r"[A-Za-z0-9_-]{24,}", _ED)),
    ("vault_recovery", "hvr.", _tok(r"hvr\.", r"[A-Za-z0-9_-]{24,}", _ED)),
    # a Vault batch token before 1.10's `hvb.` prefix: `b.` and its serialized body, which starts `AAAAAQ`
    ("vault_batch_legacy", "=b.AAAAAQ", _tok(r"b\.AAAAAQ", r"[A-Za-z0-9_-]{80,}", _ED)),
    ("terraform_cloud", ".atlasv1.", _B + r"[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=-]{60,}" + r"(?![A-Za-z0-9_=-])"),
    ("pulumi", "pul-", _tok(r"pul-", _HEX + "{40}")),
    # (an environment's name may come between: `dp.st.dev.…`)
    ("doppler", "dp.", _tok(r"dp\.(?:pt|st|sa|ct|scim|audit)\.(?:[a-z0-9_-]{1,32}\.)?", r"[A-Za-z0-9_-]{40,44}", _ED)),
    ("digitalocean", "dop_v1_|doo_v1_|dor_v1_", _tok(r"do[opr]_v1_", _HEX + "{64}")),
    # (its API key's newer form: `HRKU-` and a UUID, or 60 characters)
    ("heroku", "HRKU-", _tok(r"HRKU-", r"(?:[A-Za-z0-9_-]{40,}|[0-9a-fA-F]{8}-(?:[0-9a-fA-F]{4}-){3}[0-9a-fA-F]{12})", _ED)),
    ("fly_io", "FlyV1 ", r"FlyV1 (?P<s>fm\d_[A-Za-z0-9+/=_,-]{40,})"),
    ("netlify", "nfp_", _tok(r"nf[pcou]_", r"[A-Za-z0-9]{36}")),
    ("cloudflare_origin_ca", "v1.0-", _tok(r"v1\.0-", _HEX + r"{24}-" + _HEX + "{146}")),
    ("azure_ad_client_secret", "Q~", _B + r"[A-Za-z0-9_~.]{3}\dQ~[A-Za-z0-9_~.-]{31,34}" + r"(?![A-Za-z0-9_~.-])"),
    # (a Logic App's or a Function's signature is base64url: `_` and `-` are in it)
    ("azure_sas_signature", "sig=|signature=",
     r"(?i)[?&;](?:sig|signature)=(?P<s>[A-Za-z0-9%+/=_-]{20,}(?<!%3D)(?:%3D){0,2})"),
    # a SAS signature copied without its URL (a line that starts `sig=`): an HMAC-SHA256 in base64 is 43 characters
    # and its `=` pad (`%3D` URL-encoded; Azure Storage's "Create a service SAS", the `sig` field); without the pad,
    # or glued to a word (`mysig=`), it stays
    ("azure_sas_signature_bare", "sig=",
     r"(?i)(?:^|(?<=[\s\"'`]))sig=(?P<s>[A-Za-z0-9%+/]{43,129}(?:=|%3D)|[A-Za-z0-9_-]{43})(?![A-Za-z0-9%+/=_-])"),
    # ... and one named in a dictionary or given to a call (`'sig': '…'`, `params.Add("sig", "…")`): the HMAC's 43
    # characters, base64 or base64url, its pad or not
    ("azure_sas_signature_named", ("'sig'", '"sig"'),
     "(?i)" + _quoted_pair("sig", r"[A-Za-z0-9+/_-]{43}(?:=|%3D)?")),
    ("azure_function_key", "code=", r"azurewebsites\.net/api/[^\s?\"']*\?(?:[^\s\"'#]*&)?code=(?P<s>[A-Za-z0-9_%=-]{30,})"),
    # ... and one named `code` in a request's parameters (`params={'code': '…=='}`): its 54 characters and `==`
    ("azure_function_key_named", ("'code'", '"code"'),
     _quoted_pair("code", r"[A-Za-z0-9_/+-]{54}==")),
    ("azure_storage_key_assign", "accountkey",
     r"(?i)AccountKey\s*=\s*(?P<s>[A-Za-z0-9+/]{40,88}={0,2})"),
    # Azure's common annotated security key (CASK, 84 characters; a Cognitive Services, a Container Registry, a
    # Search key): 52 random, the fixed `JQQJ9` signature and its version, a date-and-provider part, 7 more
    ("azure_cask", "=JQQJ9",
     r"(?<![A-Za-z0-9+/_-])(?P<s>[A-Za-z0-9+/]{52}JQQJ9[9DH][A-Za-z0-9][A-L][A-Za-z0-9+/]{16}[A-Za-z][A-Za-z0-9+/]{7}"
     r"(?:[A-Za-z0-9+/]{2}==)?)(?![A-Za-z0-9+/=_-])"),
    ("azure_devops_pat", "azure_devops|ado_pat|azdo", _B + r"[a-z0-9]{52}" + _E + r"|" + _B + r"[A-Za-z0-9]{76}AZDO[A-Za-z0-9]{4}" + _E),
    ("google_oauth_client_secret", "GOCSPX-", _tok(r"GOCSPX-", r"[A-Za-z0-9_-]{28}", _ED)),
    ("google_oauth_refresh", "1//0", r"(?<![A-Za-z0-9/])1//0[A-Za-z0-9_-]{40,}" + _ED),
    ("google_oauth_access", "ya29.", _tok(r"ya29\.", r"[A-Za-z0-9_-]{30,}", _ED)),
    ("alibaba_access_key", "LTAI", _tok(r"LTAI", r"[A-Za-z0-9]{12,20}")),
    ("tencent_secret_id", "AKID", _tok(r"AKID", r"[A-Za-z0-9]{32}")),
    ("yandex_api_key", "AQVN", _tok(r"AQVN", r"[A-Za-z0-9_-]{35,38}", _ED)),
    ("age_secret_key", "AGE-SECRET-KEY-1", _tok(r"AGE-SECRET-KEY-1", r"[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}")),
    ("planetscale", "pscale_", _tok(r"pscale_(?:tkn|pw|oauth)_", r"[A-Za-z0-9_.=-]{32,64}", _ED)),
    ("supabase", "sbp_", _tok(r"sbp_(?:v0_)?", _HEX + "{40}")),
    ("sentry_user", "sntryu_", _tok(r"sntryu_", _HEX + "{64}")),
    ("sentry_org", "sntrys_", _tok(r"sntrys_", r"[A-Za-z0-9+/=_]{50,}", r"(?![A-Za-z0-9+/=_])")),
    ("new_relic", "NRAK-|NRII-|NRAA-", _tok(r"NR(?:AK|II|AA)-", r"[A-Za-z0-9]{27,32}")),
    ("grafana_cloud", "glc_", _tok(r"glc_", r"[A-Za-z0-9+/]{32,400}={0,2}", r"(?![A-Za-z0-9+/=])")),
    ("grafana_service_account", "glsa_", _tok(r"glsa_", r"[A-Za-z0-9]{32}_" + _HEX + "{8}")),
    ("dynatrace", "dt0c01.", _tok(r"dt0c01\.", r"[A-Za-z0-9]{24}\.[A-Za-z0-9]{64}")),
    # ---- added after a look at half "a" of gitleaks' rule tests (benchmarks/secrets_recall.py)
    ("aws_other_key_ids", "abia|acca", _tok(r"A(?:BIA|CCA)", r"[A-Z0-9]{16}")),
    # a Django project's generated secret key (`startproject` writes `django-insecure-` and 50 characters of its
    # alphabet), under any name or none
    ("django_insecure_key", "django-insecure-",
     r"(?<![\w-])(?P<s>django-insecure-[a-z0-9!@#$%^&*()\-_=+]{40,})"),
    # an access key id of the `A3T` prefix (gitleaks' AWS rule has it)
    ("aws_a3t_key_id", "=A3T", _tok(r"A3T[A-Z0-9]", r"[A-Z0-9]{16}")),
    # a secret access key's form (40 characters of base64's alphabet, mixed case and a digit) quoted after a name that
    # begins with `aws` (`aws="…"`, `AWS_PROD: '…'`, and glued as a scanner's test writes it, `aws"…"`): a name of
    # `secret` or `key` was found already; `aws_region`'s and an ARN's values are no such run
    ("aws_secret_key_named", "aws",
     r"(?<![A-Za-z0-9])(?i:aws)[A-Za-z0-9_.-]{0,20}?[\"']?[ \t]*(?:=>|:=|[:=])?[ \t]*(?P<q>[\"'])"
     r"(?P<s>(?=[A-Za-z0-9/+]{0,39}[0-9])(?=[A-Za-z0-9/+]{0,39}[a-z])(?=[A-Za-z0-9/+]{0,39}[A-Z])[A-Za-z0-9/+]{40})"
     r"(?P=q)"),
    ("aws_bedrock_long_term", "absk", _tok(r"ABSKQmVkcm9ja0FQSUtleS", r"[A-Za-z0-9+/]{60,}={0,2}", r"(?![A-Za-z0-9+/=])")),
    ("aws_bedrock_short_term", "bedrock-api-key-", _tok(r"bedrock-api-key-YmVkcm9jay5hbWF6b25hd3MuY29t", r"[A-Za-z0-9+/=%&]*")),
    ("clickhouse_cloud", "4b1d", _tok(r"4b1d", r"[A-Za-z0-9]{38}")),
    ("duffel", "duffel_", _tok(r"duffel_(?:test|live)_", r"[A-Za-z0-9_=-]{43}", _ED)),
    ("frameio", "fio-u-", _tok(r"fio-u-", r"[A-Za-z0-9_=-]{64}", _ED)),
    ("gitlab_feature_flags", "glffct-", _tok(r"glffct-", r"[A-Za-z0-9_-]{20}", _ED)),
    ("gitlab_agent", "glagent-", _tok(r"glagent-", r"[A-Za-z0-9_-]{50}", _ED)),
    ("gitlab_runner_registration", "gr1348941", _tok(r"GR1348941", r"[A-Za-z0-9_-]{20}", _ED)),
    ("gitlab_session_cookie", "_gitlab_session=", r"_gitlab_session=(?P<s>[0-9a-z]{32})" + _E),
    ("harness", "pat.|sat.", _tok(r"(?:pat|sat)\.", r"[A-Za-z0-9_-]{22}\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{20}")),
    ("infracost", "ico-", r"(?<![A-Za-z0-9_.-])ico-[A-Za-z0-9]{32}" + _E),  # not a file's `.ico-<hash>.png`
    ("stripe_prod", "k_prod_", _tok(r"[rs]k_prod_", r"[A-Za-z0-9]{20,}")),
    ("sourcegraph", "sgp_", _tok(r"sgp_(?:[a-fA-F0-9]{16}_)?(?:local_)?", r"[a-fA-F0-9]{40}")),
    # (not glued to `+` or `/`: a run of base64, an image's data, holds `EAA` and a hundred letters)
    ("facebook_page_token", "eaa",
     r"(?<![A-Za-z0-9_+/])(?<!\[REDACTED\])EAA[A-Z][A-Za-z0-9]{100,}(?![A-Za-z0-9_+/=]|\[REDACTED\])"),
    # ---- added after gitleaks' rule tests (the development corpus; benchmarks/secrets_recall.py)
    ("onepassword_service_account", "ops_eyj",
     _tok(r"ops_eyJ", r"[A-Za-z0-9+/_-]{250,}={0,3}", r"(?![A-Za-z0-9+/=_-])")),
    ("onepassword_secret_key", "=A3-",
     _B + r"A3-[A-Z0-9]{6}-(?:[A-Z0-9]{11}|[A-Z0-9]{6}-[A-Z0-9]{5})-[A-Z0-9]{5}-[A-Z0-9]{5}-[A-Z0-9]{5}" + _ED),
    ("adobe_client_secret", "p8e-", _tok(r"p8e-", r"(?=[A-Za-z0-9_-]{0,35}[0-9])[A-Za-z0-9_-]{32,36}", _ED)),
    ("easypost", "=EZAK|EZTK", _tok(r"EZ[AT]K", r"[A-Za-z0-9]{54}")),
    # an app access token, `app id|app secret`: the secret is the part after the bar
    ("facebook_app_token", ("~\\|(?<=[0-9]\\|)[A-Za-z0-9_-]{27}", "~%7[Cc](?<=[0-9]%7[Cc])[A-Za-z0-9_-]{27}"),
     r"(?<![0-9])\d{15,16}(?:\||%7[Cc])(?P<s>[A-Za-z0-9_-]{27,40})" + _ED),
    ("fly_io_token", "fo1_|fm1a_|fm1r_|fm2_",
     _B + r"(?:fo1_[A-Za-z0-9_-]{43}|fm1[ar]_[A-Za-z0-9+/]{100,}={0,3}|fm2_[A-Za-z0-9+/]{100,}={0,3})" + r"(?![A-Za-z0-9_+/=-])"),
    ("flutterwave_encryption_key", "flwseck_test-", _tok(r"FLWSECK_TEST-", r"[a-h0-9]{12}")),
    # Grafana's legacy API key: base64 of `{"k":"…` (`eyJrIjoi`): 40 more characters hold most of the 32 of its "k"
    # (GitHub's custom patterns match 42; a whole key runs past 70)
    ("grafana_api_key", "eyjrijoi", _tok(r"eyJrIjoi", r"[A-Za-z0-9]{40,400}={0,3}", r"(?![A-Za-z0-9=])")),
    # Okta's API token after its own scheme word, `SSWS 00…` (40 more), outside an Authorization header too
    ("okta_ssws_token", "=SSWS", r"(?<![A-Za-z0-9_])SSWS[ \t]{1,5}(?P<s>00[A-Za-z0-9_-]{40})" + _ED),
    # a bearer token that is a UUID, in prose or a log line (`Bearer 3f6c…-4…`): the word `Bearer` then the UUID alone
    ("bearer_uuid", "bearer", r"(?<![A-Za-z0-9_])(?i:bearer)[ \t]+(?P<s>[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}"
     r"-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})" + _ED),
    ("intra42_secret", "s-s4t2ud-|s-s4t2af-", _tok(r"s-s4t2(?:ud|af)-", _HEX + "{64}")),
    ("openshift_user_token", "sha256~", r"(?<![\w~])sha256~(?P<s>[\w-]{43})" + _ED),
    # Bundler's credentials for a gem host (`BUNDLE_GEMS__CONTRIBSYS__COM=user:password`)
    ("bundler_credentials", "=BUNDLE_",
     r"\bBUNDLE_[A-Z0-9_]*__[A-Z0-9_]+[\"']?[ \t]*[:=][ \t]*[\"']?[^\s\"':$]+:(?P<s>(?![/#$])[^\s\"'`;&()]+)"),
    ("twitter_bearer", "=AAAAAAAAAAAAAAAAAAAAA", _tok(r"A{22}", r"[A-Za-z0-9%]{80,120}")),
    # Vault's legacy service token: `s.` and 24 letters and digits of both cases (a bare `s.` is in every line:
    # the hint is the regex)
    ("vault_legacy_service", ("~sl?\\.[A-Za-z0-9_-]{24}",),
     r"(?<![\w.$/-])s\.(?=[A-Za-z0-9]{0,23}[0-9])(?=[A-Za-z0-9]{0,23}[A-Z])(?=[A-Za-z0-9]{0,23}[a-z])"
     r"[A-Za-z0-9]{24}(?![\w.-])"),
    # a JWT without its signature (`alg: none`), or its header not JSON's `{"`
    ("jwt_unsigned", ".ey",
     r"(?<![\w.-])(?<!\[REDACTED\])ey[A-Za-z0-9_-]{15,}\.ey[A-Za-z0-9_/\\-]{15,}\.(?:[A-Za-z0-9_/\\-]{10,}={0,2})?"
     r"(?![\w.]|\[REDACTED\])"),
    # a JWT whose header is JSON laid out with a line break or a tab after its `{` (RFC 7519 lets JSON's blanks
    # be): base64 of `{\n ` is `ewog`, of `{\n"` `ewoi`, of `{\n\t` `ewoJ`, of `{\r\n` `ew0K`, of `{\t"` `ewki`;
    # the claims `eyJ…` after it. A word starting `ew` (`ewallet_…`) is none of these
    ("jwt_spaced_header", "=.ey",
     r"(?<![\w.-])(?<!\[REDACTED\])ew(?:o[gJi]|0K|k[iJ])[A-Za-z0-9_-]{15,}\.eyJ[A-Za-z0-9_-]{15,}\.(?:[A-Za-z0-9_-]{10,})?"
     r"(?![\w.]|\[REDACTED\])"),
    # (not in a URL's path: a Notion page's `…/API-<32 hex>`)
    ("octopus_deploy", "=API-", r"(?<![A-Za-z0-9_/.-])API-(?=[A-Z0-9]{0,25}[0-9])[A-Z0-9]{26,34}" + _ED),
    ("scalingo", "tk-us-", _tok(r"tk-us-", r"[A-Za-z0-9_-]{48}", _ED)),
    ("settlemint", "sm_pat_|sm_aat_|sm_sat_", _tok(r"sm_[aps]at_", r"[a-z0-9]{16}")),
    ("twilio_api_key", "=SK", _tok(r"SK", r"[0-9a-fA-F]{32}")),
    ("maxmind_license_key", "_mmk", _tok(r"", r"[A-Za-z0-9]{6}_[A-Za-z0-9]{29}_mmk")),
    ("sonarqube", "sqp_|squ_|sqa_", _tok(r"sq[pua]_", r"[a-f0-9]{40}")),
    # ---- added after trufflehog's detector tests (the development corpus since issue 33's second round)
    ("adafruit_io", "aio_", _tok(r"aio_", _MIX + r"[A-Za-z0-9]{28}")),
    ("apify", "apify_api_", _tok(r"apify_api_", r"[A-Za-z0-9-]{36}", _ED)),
    ("aws_appsync", "da2-", _tok(r"da2-", r"(?=[a-z0-9]*[0-9])[a-z0-9]{26}", _ED)),
    ("bannerbear", "bb_pr_|bb_ma_", _tok(r"bb_(?:pr|ma)_", _HEX + "{30}")),
    ("cloudflare_token", "cfut_|cfat_|cfk_", _tok(r"cf(?:ut|at|k)_", r"[A-Za-z0-9]{40}" + _HEX + "{8}")),
    ("endor_labs", "endr+", _tok(r"endr\+", r"[A-Za-z0-9-]{16}", _ED)),
    ("figma_figp", "figp_", _tok(r"figp_", r"[A-Za-z0-9_=-]{40,54}", r"(?![A-Za-z0-9_=-])")),
    ("fleetbase", "flb_live_|flb_test_", _tok(r"flb_(?:live|test)_", r"[A-Za-z0-9]{20}")),
    ("flexport", "shltm_", _tok(r"shltm_", r"[A-Za-z0-9_-]{40}", _ED)),
    ("hubspot_pat", "pat-na|pat-eu|pat-ap",
     _tok(r"pat-(?:na|eu|ap)[1-9]-", r"[A-Za-z0-9]{8}-[A-Za-z0-9]{4}-[A-Za-z0-9]{4}-[A-Za-z0-9]{4}-[A-Za-z0-9]{12}", _ED)),
    # LaunchDarkly's SDK keys and API access tokens: the prefix, then a version-4 uuid
    ("launchdarkly", "sdk-|api-", _tok(r"(?:sdk|api)-", r"[a-z0-9]{8}-[a-z0-9]{4}-4[a-z0-9]{3}-[a-z0-9]{4}-[a-z0-9]{12}", _ED)),
    ("lob", "live_|test_", _tok(r"(?:live|test)_", _HEX + "{35}")),
    ("new_relic_browser", "NRBR-", _tok(r"NRBR-", _HEX + "{19}")),
    ("new_relic_insights_insert", "NRII-", _tok(r"NRII-", r"(?=[A-Za-z0-9_-]*[0-9])[A-Za-z0-9_-]{25,32}", _ED)),
    ("new_relic_license", "ffffnral", _tok(r"", r"(?:" + _HEX + r"{32}|eu01xx" + _HEX + r"{26})FFFFNRAL")),
    ("new_relic_mobile", "-nrma", _tok(r"", r"(?:AA" + _HEX + r"{40}|eu01xx" + _HEX + r"{36})-NRMA")),
    ("nightfall", "=NF-", _tok(r"NF-", _MIX + r"[A-Za-z0-9]{32}")),
    ("pagarme", "ak_live_|ak_test_", _tok(r"ak_(?:live|test)_", r"[A-Za-z0-9]{30}")),
    ("pganalyze", "pgar_", _tok(r"pgar_", r"[A-Za-z0-9]{27}")),
    ("posthog_personal", "phx_", _tok(r"phx_", r"[A-Za-z0-9_]{43,64}")),
    ("ramp_secret", "ramp_sec_", _tok(r"ramp_sec_", r"[A-Za-z0-9]{48}")),
    ("recharge", "sk_", _tok(r"sk(?:_test)?_(?:1|2|3|5|10)x[123]_", r"[0-9a-fA-F]{64}")),
    ("rootly", "rootly_", _tok(r"rootly_", _HEX + "{64}")),
    ("salad_cloud", "salad_cloud_", _tok(r"salad_cloud_[A-Za-z0-9]{1,7}_", r"(?=[A-Za-z0-9]*[0-9])[A-Za-z0-9]{20,235}")),
    # a Salesforce access token: the org id's 15 characters, `!`, the session part
    ("salesforce_access", ("~00[A-Za-z0-9]{13}!",), _tok(r"00", r"[A-Za-z0-9]{13}![A-Za-z0-9_.]{96}", r"(?![A-Za-z0-9_.])")),
    ("sonarcloud", "sqco_", _tok(r"sqco_", r"[A-Za-z0-9]{59}")),
    ("sourcegraph_cody", "slk_", _tok(r"slk_", _HEX + "{64}")),
    ("spectralops", "spu-", _tok(r"spu-", r"[a-z0-9]{32}")),
    ("tailscale", "tskey-", _tok(r"tskey-[a-z]+-", r"[A-Za-z0-9_]{6,}-[A-Za-z0-9_]{16,}")),
    ("tines_webhook", ".tines.com/webhook/", r"https://[\w-]+\.tines\.com/webhook/(?P<s>[a-z0-9]{32}/[a-z0-9]{32})" + _E),
    ("ubidots", "BBFF-", _tok(r"BBFF-", r"[A-Za-z0-9]{30}")),
    ("zoho", "1000.", _tok(r"1000\.", _HEX + r"{32}\." + _HEX + "{32}")),
    # ---- added after secretlint's snapshots and detect-secrets' plugin tests (development corpora since issue 33's
    # third round)
    ("vercel", "vcp_|vci_|vca_|vcr_|vck_",
     _tok(r"vc[piark]_", r"(?=[A-Za-z0-9]{0,59}[0-9])(?=[A-Za-z0-9]{0,59}[A-Za-z])[A-Za-z0-9]{24,60}")),
    # a Discord bot token: the bot's id in base64 (`M`, `N` or `O` first), a timestamp, an HMAC of mixed characters
    ("discord_bot", ("~\\.[A-Za-z0-9_-]{6}\\.[A-Za-z0-9_-]{27}",),
     r"(?<![A-Za-z0-9_.-])[MNO][A-Za-z0-9_-]{23,25}\.[A-Za-z0-9_-]{6}\.(?=[A-Za-z0-9_-]{0,37}[0-9])"
     r"(?=[A-Za-z0-9_-]{0,37}[A-Z])(?=[A-Za-z0-9_-]{0,37}[a-z])[A-Za-z0-9_-]{27,38}(?![A-Za-z0-9_-])"),
    # a JWT of two parts, header and claims, no signature: it ends where a value ends (a blank, a quote, a bracket),
    # not at a character no JWT holds (`?`, `.`)
    ("jwt_two_part", "=.eyJ",
     r"(?<![\w.-])(?<!\[REDACTED\])eyJ[A-Za-z0-9_-]{15,}\.eyJ[A-Za-z0-9_-]{15,}(?=$|[\s\"'`,;&)\]}<>])"),
    # a raw private key (secp256k1, 64 hex digits, maybe `0x`) after a private key's name in prose; not when a
    # hash's or a public key's word comes between (`private key file sha256: …`)
    ("hex_private_key_prose", "private key|private-key|privkey|priv key|secret key|signing key",
     r"(?i)\b(?:private|priv|secret|signing)[ -]?key\b(?:(?!hash|sha|digest|checksum|fingerprint|public|address)"
     r"[^\n]){0,48}?(?<![0-9a-f])(?:0x)?(?P<s>[0-9a-f]{64})(?![0-9a-z])"),
    # ---- added after Nosey Parker's rule examples (a development corpus since issue 33's fourth round)
    ("dependency_track", "odt_",
     _tok(r"odt_", r"(?=[A-Za-z0-9]{0,39}[0-9])(?=[A-Za-z0-9]{0,39}[A-Z])[A-Za-z0-9]{32,40}")),
    # a Twitch stream key: `live_`, the channel's number, 30 letters and digits
    ("twitch_stream_key", "live_", _tok(r"live_\d{6,12}_", r"(?=[A-Za-z0-9]{0,29}[0-9])[A-Za-z0-9]{30}")),
    # a TrueNAS API key: its number, `-`, 64 letters and digits of both cases (no hex digest has capitals)
    ("truenas_api_key", ("~-[A-Za-z0-9]{64}(?![A-Za-z0-9])",),
     r"(?<![\w.-])\d{1,5}-(?=[A-Za-z0-9]{0,63}[0-9])(?=[A-Za-z0-9]{0,63}[A-Z])(?=[A-Za-z0-9]{0,63}[a-z])"
     r"[A-Za-z0-9]{64}" + _ED),
    ("pixie", "px-dep-|px-api-",
     _tok(r"px-(?:dep|api)-", r"[a-f0-9]{8}-[a-f0-9]{4}-[a-f0-9]{4}-[a-f0-9]{4}-[a-f0-9]{12}", _ED)),
    ("jina", "jina_", _tok(r"jina_", r"(?=[A-Za-z0-9]{0,69}[0-9])[A-Za-z0-9]{50,70}")),
    ("new_relic_query_rest", "nriq-|nrra-",
     _tok(r"NR(?:IQ|RA)-", r"(?=[A-Za-z0-9_-]{0,41}[0-9])[A-Za-z0-9_-]{32,42}", _ED)),
    ("new_relic_license_key", "nral", _tok(r"", r"(?:eu01x[a-fx0-9]{31}|[a-f0-9]{36})NRAL")),
    # Vault's service token of the newer, longer form under its legacy `s.` prefix
    ("vault_service_long", ("~sl?\\.[A-Za-z0-9_-]{24}",),
     r"(?<![\w.$/-])s\.(?=[A-Za-z0-9_-]{0,200}[0-9])(?=[A-Za-z0-9_-]{0,200}[A-Z])[A-Za-z0-9_-]{90,}(?![\w.-])"),
    # a Vault unseal key (base64 of 32 bytes) after `Unseal Key 1:` or `vault operator unseal`
    ("vault_unseal_key", "unseal",
     r"(?i)\bunseal(?:[ _-]?key(?:[ _-]?\d+)?[ \t]*[:=]|[ \t])[ \t]*[\"']?(?P<s>[A-Za-z0-9+/]{43}[A-Za-z0-9+/=])"
     r"(?![A-Za-z0-9+/=])"),
    ("firecrawl", "fc-", _tok(r"fc-", _HEX + "{32}")),
    ("stackhawk", "hawk.", _tok(r"hawk\.", r"[A-Za-z0-9_-]{20}\.[A-Za-z0-9_-]{20}", _ED)),
    # (one hint with the Vault tokens' rows: one scan for the three)
    ("dropbox_short_lived", ("~sl?\\.[A-Za-z0-9_-]{24}",),
     r"(?<![\w.-])sl\.(?=[A-Za-z0-9_-]{0,60}[0-9])[A-Za-z0-9_-]{130,160}(?![\w-])"),
    # a device's access token in a ThingsBoard-style URL path (`/api/v1/<token>/telemetry`)
    ("iot_device_token_path", "api/v1/",
     r"/api/v1/(?P<s>(?=[A-Za-z0-9]{0,19}[0-9])(?=[A-Za-z0-9]{0,19}[a-z])[A-Za-z0-9]{20})"
     r"/(?:telemetry|attributes|rpc|claim)\b"),
    # password hashes (crypt(3): MD5, Apache's MD5 `$apr1$` (.htpasswd), SHA-256, SHA-512, bcrypt; Cisco type 8 and 9) and Kerberos AS-REP hashes:
    # an offline guess recovers the password. The `$id$` stays. (One hint regex for the four: one scan, and no `$`
    # among the first characters of the literal hints' trie.)
    ("crypt_hash", _CRYPT_HINT,
     r"(?<![\w$])\$(?:(?:1|apr1)\$(?P<s>[./A-Za-z0-9]{1,8}\$[./A-Za-z0-9]{22})"
     r"|[56]\$(?:rounds=\d+\$)?(?P<s2>[./A-Za-z0-9]{1,16}\$(?:[./A-Za-z0-9]{86}|[./A-Za-z0-9]{43})))"
     r"(?![./A-Za-z0-9])"),
    ("bcrypt_hash", _CRYPT_HINT,
     r"(?<![\w$])\$2[abxy]\$\d{2}\$(?P<s>[./A-Za-z0-9]{53})(?![./A-Za-z0-9])"),
    ("cisco_type8_hash", _CRYPT_HINT,
     r"(?<![\w$])\$[89]\$(?P<s>[./A-Za-z0-9]{14}\$[./A-Za-z0-9]{43})(?![./A-Za-z0-9])"),
    # a PEM private key in base64 (_B64_PEM_PREFIXES): the whole run; a block wrapped over lines has its later lines
    # redacted by secret_blocks._b64_pem_changes
    ("b64_pem_private_key", "=LS0tLS1CRUdJTi",
     r"(?<![A-Za-z0-9+/])(?P<s>(?:" + "|".join(_B64_PEM_PREFIXES) + r")[A-Za-z0-9+/]*={0,2})(?![A-Za-z0-9+/=])"),
    # yescrypt (`$y$`, the default of /etc/shadow on current Debian, Fedora, Arch) and its GOST variant (`$gy$`):
    # `$y$` + parameters + `$` + salt + `$` + 43 characters; Sun's MD5 crypt (`$md5[,rounds=N]$salt$$` + 22). LaTeX's
    # `$y$` (math) has no salt and hash after it and stays.
    ("yescrypt_hash", _CRYPT_HINT,
     r"(?<![\w$])\$g?y\$[./A-Za-z0-9]{1,16}\$(?P<s>[./A-Za-z0-9]{1,86}\$[./A-Za-z0-9]{43})(?![./A-Za-z0-9])"),
    ("sun_md5_hash", _CRYPT_HINT,
     r"(?<![\w$])\$md5(?:,rounds=\d{1,9})?\$(?P<s>[./A-Za-z0-9]{1,8}\$\$?[./A-Za-z0-9]{22})(?![./A-Za-z0-9])"),
    ("kerberos_asrep_hash", _CRYPT_HINT,
     r"\$krb5asrep\$\d+\$(?P<s>(?:[^$\s:]+:)?[0-9a-f]{32}\$[0-9a-f]{64,})"),
    # a password stated in prose, quoted (`The password is 'Secret123'`)
    ("prose_password", "password is|password was|passphrase is",
     # (not a string's closing quote before code: JavaVulnerableLab's `"… Your Password is: "+rs.getString("`)
     r"(?i)\bpass(?:word|phrase)[ \t]+(?:is|was)[ \t]*:?[ \t]*(?P<q>[\"'`])(?P<s>[^\"'`\s+.,;)][^\"'`\n]{3,63})(?P=q)"),
    # credentials given to .NET's constructors: the password after the user name (and the LDAP path)
    ("network_credential", "networkcredential",
     r"\bNetworkCredential\([ \t]*\"[^\"\n]*\"[ \t]*,[ \t]*\"(?P<s>[^\"\n]+)\""),
    ("directory_entry", "directoryentry",
     r"\bDirectoryEntry\([ \t]*\"[^\"\n]*\"[ \t]*,[ \t]*\"[^\"\n]*\"[ \t]*,[ \t]*\"(?P<s>[^\"\n]+)\""),
    # JDBC's `DriverManager.getConnection(url, user, password)`: the password by position, a literal after the
    # user's (issue 33, twenty-sixth round)
    ("jdbc_get_connection", "getconnection",
     r"\bgetConnection\([ \t]*[^,()\n]+,[ \t]*\"[^\"\n]*\"[ \t]*,[ \t]*\"(?P<s>[^\"\n]+)\"[ \t]*\)"),
    # a SonarQube token (40 hex) under `sonar.login` or a SonarQube token's name (a property, a `-D` flag,
    # `$sonarLogin`, Ant's `<property name="sonar.login" value="…"/>`, Windows' `setx "SONAR_TOKEN" "…"`)
    ("sonarqube_login", "sonar.login|sonarlogin|sonar_login|sonar_token|sonar.token|sonarqube_token",
     r"(?i)sonar(?:qube)?[._]?(?:login|token)[\"']?(?:[ \t]*(?:=>|[:=,])[ \t]*|[ \t]+(?:value[ \t]*=[ \t]*)?)[\"']?"
     r"(?P<s>[a-f0-9]{40})(?![a-f0-9])"),
    # a token as a URL's user with no password (`git clone https://<40 hex>@github.com/…`: GitHub takes an OAuth
    # token there); a user's name is no 40 hex
    ("github_token_url_user", "@github.com|.github.com",
     r"(?i)\bhttps?://(?P<s>[a-f0-9]{40})@(?:[\w-]+\.)*github\.com\b"),
    # an Infura project's key in its endpoint (`https://mainnet.infura.io/v3/<32 hex>`, `wss://…/ws/v3/…`)
    ("infura_url_key", "infura.io", r"(?i)\b[\w-]+\.infura\.io/(?:ws/)?v3/(?P<s>[a-f0-9]{32})(?![a-f0-9])"),
    # an Azure API Management or Cognitive Services subscription key (32 hex) in a URL's query or its header
    ("azure_subscription_key", "subscription-key",
     r"(?i)(?:[?&]subscription-key=|\bocp-apim-subscription-key" + _PAIR_OP + ")"
     r"(?P<s>[a-f0-9]{32})(?![a-f0-9])"),
    # an Android build's constant under a secret's name (`buildConfigField 'String', 'API_KEY', '"…"'`)
    ("gradle_build_config_field", "buildconfigfield",
     r"(?i)\bbuildConfigField\s*\(?\s*['\"]String['\"]\s*,\s*['\"][\w.]*(?:key|token|secret|passw(?:or)?d|pwd)[\w.]*['\"]"
     r"\s*,\s*['\"]\\?\"(?P<s>[^\"'\\\n]+)\\?\"['\"]"),
    # ---- added after kingfisher's rule examples (a development corpus since issue 33's sixth round)
    # FullStory's API key: a region, `.`, base64 of 80 or more
    ("fullstory", "na1.|eu1.",
     r"(?<![\w.])(?:na|eu)1\.(?=[A-Za-z0-9+/]{0,40}[0-9])(?=[A-Za-z0-9+/]{0,40}[A-Z])[A-Za-z0-9+/]{80,}={0,2}"
     r"(?![A-Za-z0-9+/=])"),
    ("ionic", ("~ion_[A-Za-z0-9]{42}",), _tok(r"ion_", _MIX + r"[A-Za-z0-9]{42}")),
    # a MongoDB Atlas service account's secret
    ("mongodb_service_account", "mdb_sa_sk_", _tok(r"mdb_sa_sk_", r"[A-Za-z0-9_-]{40}", _ED)),
    # PubNub's publish and subscribe keys: `pub-c-`/`sub-c-` and a uuid's shape
    ("pubnub", "pub-c-|sub-c-", _tok(r"(?:pub|sub)-c-", r"[a-z0-9]{8}-[a-z0-9]{4}-[a-z0-9]{4}-[a-z0-9]{4}-[a-z0-9]{12}", _ED)),
    # a Voiceflow API key: `VF.DM.`/`VF.WS.`, 24 hex, `.`, 16 letters and digits
    ("voiceflow", "=VF.DM.|VF.WS.", _tok(r"VF\.(?:DM|WS)\.", _HEX + r"{24}\.[A-Za-z0-9]{16}")),
    # ---- chat, productivity, payments
    ("slack_app_level", "xapp-", _tok(r"xapp-\d-", r"[A-Z0-9]+-\d+-[a-z0-9]{32,}")),
    # a Slack token of one random body past its prefix (no numeric parts): a bot's, a user's, a refresh or a
    # configuration token's (`xoxe.xoxp-`), an app-level one's, a workflow's (`xwfp-`); both cases and a digit
    ("slack_token_body", "xoxa-|xoxb-|xoxe-|xoxe.|xoxo-|xoxp-|xoxr-|xoxs-|xapp-|xwfp-",
     _tok(r"(?:xox[abeoprs]|xoxe\.xox[bp]|xapp|xwfp)-", _MIX + r"[A-Za-z0-9]{32,}", _ED)),
    ("telegram_bot", "=:A", r"(?<![A-Za-z0-9])\d{5,16}:A[A-Za-z0-9_-]{33,34}" + _ED),
    ("figma", "figd_", _tok(r"figd_", r"[A-Za-z0-9_-]{40}", _ED)),
    ("notion", "ntn_", _tok(r"ntn_", r"[0-9]{11}[A-Za-z0-9]{35}")),
    ("notion_legacy", "secret_", _tok(r"secret_", r"(?=[A-Za-z0-9]*[0-9])(?=[A-Za-z0-9]*[A-Z])[A-Za-z0-9]{43}")),
    ("airtable_pat", "pat", _tok(r"pat", r"[A-Za-z0-9]{14}\." + _HEX + "{64}")),
    ("clickup", "pk_", _tok(r"pk_\d{3,10}_", r"[A-Z0-9]{32}")),
    ("postman", "PMAK-", _tok(r"PMAK-", r"(?=[A-Za-z0-9-]*[0-9])[A-Za-z0-9-]{59}", _ED)),
    ("linear", "lin_api_|lin_oauth_", _tok(r"lin_(?:api|oauth)_", r"[A-Za-z0-9]{40,64}")),
    # hex, and since 2024 any letters and digits, 32 to 64 of them (with a digit: not an identifier)
    ("shopify", "shp", _tok(r"shp(?:at|ca|pa|ss)_", r"(?=[A-Za-z0-9]{0,63}[0-9])[A-Za-z0-9]{32,64}")),
    # Maven's master password, settings-security.xml's `<master>{…}</master>`: encrypted with a fixed, public
    # passphrase, so as good as plain (a server's `<password>{…}</password>` is encrypted with this master: useless
    # without it, kept as trivy keeps it)
    ("maven_master", "<master>", r"(?i)<master>[ \t]*\{(?P<s>[A-Za-z0-9+/]{20,}={0,2})\\?\}[ \t]*</master>"),
    ("square_access", "sq0atp-", _tok(r"sq0atp-", r"[A-Za-z0-9_-]{22}", _ED)),
    ("square_oauth_secret", "sq0csp-", _tok(r"sq0csp-", r"[A-Za-z0-9_-]{43,50}", _ED)),
    ("square_production", "EAAA", r"(?<![A-Za-z0-9_+/=-])EAAA[A-Za-z0-9_+=-]{22,60}(?![A-Za-z0-9_+/=-])"),
    ("stripe_webhook_secret", "whsec_", _tok(r"whsec_", r"[A-Za-z0-9+/=]{32,}", r"(?![A-Za-z0-9+/=])")),
    # the last part hex in gitleaks' form, any lowercase letters and digits in semgrep's
    ("braintree", "access_token$", r"access_token\$(?:production|sandbox)\$[a-z0-9]{16}\$[a-z0-9]{32}" + _E),
    ("amazon_mws", "amzn.mws.", _tok(r"amzn\.mws\.", _HEX + r"{8}-" + _HEX + r"{4}-" + _HEX + r"{4}-" + _HEX + r"{4}-"
                                     + _HEX + "{12}", _ED)),
    ("kolide", "k2sk_v", _tok(r"k2sk_v\d_", r"[A-Za-z0-9]{24}")),
    ("flutterwave", "FLWSECK", _tok(r"FLWSECK(?:_TEST)?-", r"[a-z0-9]{32}-X")),
    ("facebook_access", "EAACEdEose0cBA", _tok(r"EAACEdEose0cBA", r"[A-Za-z0-9]{20,}")),
    ("shippo", "shippo_", _tok(r"shippo_(?:live|test)_", _HEX + "{40}")),
    ("typeform", "tfp_", _tok(r"tfp_", r"(?=[A-Za-z0-9_.=-]{0,63}[0-9])[A-Za-z0-9_.=-]{40,64}", _ED)),
    ("contentful", "CFPAT-", _tok(r"CFPAT-", r"[A-Za-z0-9_=-]{43}", _ED)),
    ("mapbox_secret", "sk.eyj", _tok(r"sk\.eyJ", r"[A-Za-z0-9_-]{20,}\.[A-Za-z0-9_-]{20,}", _ED)),
    ("prefect", "pnu_", _tok(r"pnu_", r"[A-Za-z0-9]{36}")),
    ("readme", "rdme_", _tok(r"rdme_", r"[a-z0-9]{70}")),
    # ---- added after trufflehog's detector tests (issue 33, twenty-sixth round)
    # Tableau's personal access token secret: base64 of 16 bytes, `==:`, 32 letters and digits of both cases (a hex
    # digest there, one case only, is an MD5 pair's, kept)
    ("tableau_pat_secret", "===:",
     r"(?<![A-Za-z0-9+/])[A-Za-z0-9+/]{22}==:(?=[A-Za-z0-9]{0,31}[a-z])(?=[A-Za-z0-9]{0,31}[A-Z])[A-Za-z0-9]{32}"
     r"(?![A-Za-z0-9])"),
    # `aws configure`'s prompt answered in a transcript (`AWS Secret Access Key [None]: …`, `[****…ABCD]: …`)
    ("aws_configure_prompt", "secret access key [",
     r"(?i)\bAWS Secret Access Key \[[^\]\n]{0,40}\]:[ \t]*(?P<s>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])"),
    # Duo's secret key (40 letters and digits) under `skey` with Duo's name (`DUO_SKEY=`, `"duo_skey":`); the
    # integration key (`ikey`, `DI…`) is an id
    ("duo_secret_key", "skey",
     r"(?i)\bduo[_.-]?skey[\"']?[ \t]*(?:=>|[:=])[ \t]*[\"']?(?P<s>[A-Za-z0-9]{40})(?![A-Za-z0-9])"),
    # a key in a uuid's form under a provider's bare name whose API keys are uuids (`postmark: "…"`, `heroku = …`;
    # under `heroku_api_key` the generic name rules find it; `heroku_app_id` is no such name)
    ("provider_uuid_key", "heroku|postmark",
     r"(?i)(?<![\w.-])[\"']?(?:heroku|postmark)[\"']?[ \t]*(?:=>|[:=])[ \t]*[\"']?"
     r"(?P<s>[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})(?![\w-])"),
    ("twitch_oauth", "oauth:", r"(?<![A-Za-z0-9])oauth:(?P<s>[a-z0-9]{30})" + _E),
    # ---- webhooks: the path (or query) after the host is the secret
    # a Slack incoming webhook, with its scheme or without
    ("slack_webhook", "hooks.slack.com",
     r"(?:(?<=://)|(?<![\w./-]))hooks\.slack\.com/(?:services|workflows|triggers)/"
     # its ids, then the secret (`T…/B…/` alone, the ids, is none), or one run as long as both (gitleaks' form)
     r"(?P<s>(?:[A-Za-z0-9_-]+/){2,3}[A-Za-z0-9_-]{8,}|[A-Za-z0-9_/-]{40,})"),
    ("discord_webhook", "/api/webhooks/",
     r"discord(?:app)?\.com/api/webhooks/\d{5,}/(?P<s>[A-Za-z0-9_-]{40,})"),
    ("teams_webhook", "webhook.office.com",
     r"\.webhook\.office\.com/webhookb2/(?P<s>[A-Za-z0-9@/_-]{40,}?)(?=[\s\"'`<>)]|$)"),
    ("teams_webhook_legacy", "outlook.office.com/webhook",
     # a group's uuid, maybe its tenant's after `@` and the connector's path
     r"outlook\.office\.com/webhook/(?P<s>[0-9a-f]{8}-[0-9a-f-]{27}(?:@[A-Za-z0-9@/_-]*)?|[A-Za-z0-9@/_-]{40,}?)"
     r"(?=[\s\"'`<>)]|$)"),
    ("google_chat_webhook", "chat.googleapis.com",
     r"chat\.googleapis\.com/v1/spaces/[A-Za-z0-9_-]+/messages\?(?P<s>[^\s\"'`<>]{20,})"),
    ("zapier_webhook", "hooks.zapier.com", r"hooks\.zapier\.com/hooks/catch/(?P<s>\d+/[A-Za-z0-9]+)"),
    ("ifttt_webhook", "maker.ifttt.com", r"maker\.ifttt\.com/trigger/[^/\s]+/(?:json/)?with/key/(?P<s>[A-Za-z0-9_-]{16,})"),
    ("mattermost_webhook", "/hooks/", r"https?://[^\s/\"']+/hooks/(?P<s>[a-z0-9]{26})" + _E),
    # ---- credentials in URLs and DSNs
    # (a scheme is short: unbounded, each letter of a long run of `a.a.a…` before `://` was a start read to its end)
    ("url_token_userinfo", "://",
     r"\b[A-Za-z][A-Za-z0-9+.-]{0,31}://(?P<s>(?=[A-Za-z0-9_-]*[0-9])(?=[A-Za-z0-9_-]*[a-z])(?=[A-Za-z0-9_-]*[A-Z])[A-Za-z0-9_-]{24,})@[\w.-]+"),
    # a CloudFormation parameter given on the command line (`aws cloudformation create-stack --parameters
    # ParameterKey=DBPassword,ParameterValue=…`): the name and the value are two fields of one argument
    ("cfn_cli_parameter", "parametervalue=",
     r"(?i)\bParameterKey=[\w.-]{0,40}?(?:passw(?:or)?d|secret|token|api_?key|pwd|credential)[\w.-]{0,40},"
     r"ParameterValue=(?P<s>[^\s,\"']{4,})"),
    # a user and a password given in prose after "credentials" or "log in with/as" (InsecureBankv2's README: `Use the
    # credentials dinesh/Dinesh@123$`, "Default login: admin/…"): the part after the slash holds a letter, a digit
    # and a sign, as a password does and a path (`config/secrets.yml`) or a version (`v1/v2`) does not
    ("prose_user_slash_password", ("credential", "login", "log in", "log-in", "sign in"),
     r"(?i)\b(?:credentials?|log[ -]?in(?:[ \t]+(?:with|as))?|sign[ -]?in[ \t]+(?:with|as))\b:?[ \t]+"
     r"[\w.@-]{2,40}/(?P<s>(?=[^\s/]*[0-9])(?=[^\s/]*[A-Za-z])(?=[^\s/]*[!@#$%^&*+=?~])[^\s/,;'\"()<>`]{6,64})"),
    ("url_password_only", "://:", r"\b[A-Za-z][A-Za-z0-9+.-]{0,31}://:(?P<s>[^\s@/\"'<>]+)@"),
    ("sentry_dsn", "sentry.io", r"https?://(?P<s>[a-f0-9]{32})(?::[a-f0-9]{32})?@[\w.-]*sentry\.io/"),
    ("url_query_secret", "?api|&api|?access|&access|?auth|&auth|?client|&client|?secret|&secret|?passw|&passw|?pwd|&pwd|?private|&private|?refresh|&refresh|?token|&token|?userpass|&userpass|?credential|&credential|&amp;",
     # (`&amp;`: a query written in XML or HTML; `api.key`; `auth=` and `credential=` name a flag or a mode as
     # often, `auth=basic`: their value holds a digit)
     r"(?i)(?:[?&]|&amp;)(?:(?:api[_.-]?key|apikey|access[_-]?token|auth[_-]?token|client[_-]?secret|secret|password|passwd|pwd|"
     r"userpass|private[_-]?token|refresh[_-]?token|token)=|(?:auth|credentials?)=(?=[^&\s\"'#<>`]*[0-9]))"
     r"(?P<s>[^&\s\"'#<>`]{8,})"),
    # ---- command-line passwords
    # (`-p` then a line's end written as `\n`, a flattened settings value's `$ mysql -u root -p\nEnter password:`,
    # is a prompt: no password follows)
    ("mysql_attached_password", "mysql|mariadb",
     r"(?i)\b(?:mysql|mysqldump|mysqladmin|mysqlimport|mysqlshow|mysqlcheck|mariadb|mariadb-dump)\b[^\n|;&]*?"
     r"(?<=\s)(?-i:-p)(?P<q>[\"']?)(?!\\[nrt])(?P<s>[^\s\"'$%{<][^\s\"']*)(?P=q)"),
    ("sshpass", "sshpass", r"\bsshpass\s+-p\s*" + _ARG),
    ("redis_cli_auth", "redis-cli", r"\bredis-cli\b[^\n|;&]*?\s(?:-a|--pass)\s+" + _ARG),
    ("env_prefix_password", "pgpassword=|mysql_pwd=|rediscli_auth=|sshpass=|sa_password=",
     r"(?:(?<![\w.-])|(?<=\\n))(?:PGPASSWORD|MYSQL_PWD|REDISCLI_AUTH|SSHPASS|MSSQL_SA_PASSWORD|SA_PASSWORD)=" + _ARG),
    ("openssl_pass", "pass:", r"-pass(?:in|out)?\s+(?P<q>[\"']?)pass:(?P<s>[^\s\"'$%{<][^\s\"']*)(?P=q)"),
    ("keytool_storepass", "storepass|keypass", r"-(?:storepass|keypass|srcstorepass|deststorepass)\s+" + _ARG),
    ("sqlcmd_password", "sqlcmd|bcp|osql|isql", r"\b(?:sqlcmd|bcp|osql|isql)\b[^\n|;&]*?\s-P\s*" + _ARG),
    ("ldap_bind_password", "ldap", r"\bldap(?:search|add|modify|delete|passwd|whoami)\b[^\n|;&]*?\s-w\s+" + _ARG),
    ("zip_password", "zip", r"\b(?:zip|unzip)\b[^\n|;&]*?\s-P\s+" + _ARG),
    ("seven_zip_password", "7z", r"\b7z[a]?\b[^\n|;&]*?\s-p(?P<q>[\"']?)(?P<s>[^\s\"'$%{<-][^\s\"']*)(?P=q)"),
    ("docker_login_password", "login", r"\b(?:docker|podman|helm registry|oras|skopeo)\b[^\n|;&]*?\blogin\b[^\n|;&]*?\s-p\s+" + _ARG),
    ("smbclient_user_password", "smbclient|rpcclient|smbmap|mount.cifs", r"\b(?:smbclient|rpcclient|smbmap|mount\.cifs)\b[^\n|;&]*?\s-U\s+[\"']?[^\s%\"']+%(?P<s>[^\s\"'$]+)"),
    ("sqlplus_password", "sqlplus", r"\bsqlplus\s+(?:-[sSL]\s+)*[\w$#]+/(?P<s>[^\s@/\"'$]+)@"),
    ("xfreerdp_password", "/p:", r"\b(?:xfreerdp|wlfreerdp|sdl-freerdp)\b[^\n]*?\s/p:" + _ARG),
    ("htpasswd_batch", "htpasswd", r"\bhtpasswd\s+-[a-zA-Z]*b[a-zA-Z]*\s+(?:-\S+\s+)*\S+\s+\S+\s+" + _ARG),
    ("chpasswd", "chpasswd", r"echo\s+[\"']?[\w.-]+:(?P<s>[^\s\"'$]+)[\"']?\s*\|\s*(?:sudo\s+)?chpasswd"),
    ("net_user_password", "net user", r"(?i)\bnet user\s+[\w.$-]+\s+(?P<s>(?![/*])[^\s\"']+)\s+/add"),
    ("rabbitmq_add_user", "add_user", r"\brabbitmqctl\s+add_user\s+\S+\s+" + _ARG),
    ("psexec_password", "psexec", r"(?i)\bpsexec(?:64)?(?:\.exe)?\b[^\n|;&]*?\s-p\s+" + _ARG),
    # HashiCorp Vault's CLI given a secret as a `key=value` argument (`vault write auth/approle/login role_id=…
    # secret_id=…`, `vault kv put secret/db password=…`): AppRole's `secret_id` is a secret, `role_id` an id; a
    # variable (`secret_id=$SECRET_ID`) is no value (_ARG)
    ("vault_cli_secret", "vault ",
     r"(?i)\bvault[ \t]+(?:write|login|kv[ \t]+(?:put|patch))\b[^\n|;&]*?[ \t]"
     r"(?:secret_id|password|passwd|secret|token|client_secret)=" + _ARG),
    # Gradle's credentials blocks in the Groovy DSL, a property set by a command call with no `=` (`credentials(
    # AwsCredentials) { accessKey "…" / secretKey "…" / sessionToken "…" }`): the line is the name and one literal; a
    # GString with `$` and a call (`secretKey System.getenv("…")`) are no literals
    ("gradle_credential_property", ('secretkey "', "secretkey '", 'accesskey "', "accesskey '", 'sessiontoken "',
                                    "sessiontoken '"),
     r"^[ \t]*(?:secretKey|accessKey|sessionToken)[ \t]+(?P<q>[\"'])(?P<s>[^\"'\n$]{4,})(?P=q)[ \t]*(?://[^\n]*)?\r?$"),
    # a secret-named field of a form given to curl (`curl -d access_token=…`, `--data "api_key=…&x=1"`)
    # (hints that a line's secret word already brings to the scan: no new first character for the whole-text trie)
    ("form_data_secret", "token=|key=|secret=|passw",
     r"(?i)(?<![\w-])(?:-d|--data(?:-raw|-binary|-urlencode)?|-F|--form)(?:[ \t]+|=)[\"']?(?:[^\s\"'&]*&)*"
     r"(?:api[_-]?key|apikey|access[_-]?token|auth[_-]?token|client[_-]?secret|password|passwd|refresh[_-]?token|"
     r"private[_-]?token|token|secret)=(?P<s>[^&\s\"'#<>`]{8,})"),
    # (the command's own word: `docker-mongo`, a script's name, is none: its `docker run -p 27017:27017` maps a port)
    ("mongo_uri_flag", "mongo",
     r"(?<![\w.-])(?:mongo|mongosh|mongodump|mongorestore|mongoexport|mongoimport)\b[^\n|;&]*?\s-p\s+" + _ARG),
    # rows added after sonar-text's retired specifications (issue 33, forty-third round)
    ("riot_api_key", "=RGAPI-", _tok(r"RGAPI-", r"[0-9a-f]{8}-(?:[0-9a-f]{4}-){3}[0-9a-f]{12}", _ED)),
    # RapidAPI's key: hex in four runs joined by `msh`, `p1` and `jsn`
    ("rapidapi_key", "jsn", _B + r"[0-9a-f]{10}msh[0-9a-f]{15}p1[0-9a-f]{5}jsn[0-9a-f]{12}" + _E),
    # Firebase Cloud Messaging's legacy server key (`AAAA…:APA91b…`) and a device's registration token (`…:APA91b…`)
    ("fcm_legacy_key", "apa91b", _B + r"[A-Za-z0-9_-]{11}:APA91b[A-Za-z0-9_-]{100,}" + _ED),
    # an Azure Bot Framework Direct Line secret: after its `BotConnector` scheme or in a web chat's `?s=`
    ("bot_framework_secret", "botconnector|botframework.com",
     r"(?i)(?:botconnector|botframework\.com)[^\n]{0,120}?(?<![\w.-])(?P<s>[A-Za-z0-9_-]{11}\.[A-Za-z0-9_-]{43})"
     r"(?![\w.-])"),
    # an Event Grid shared access signature (`SharedAccessSignature r=…&e=…&s=…`, or its `r=…&e=…&s=…` alone) and
    # a topic's `aeg-sas-key` header
    ("eventgrid_sas", "&s=",
     r"(?i)(?:^|[\s\"'?&])r=[^\s&\"']+&e=[^\s&\"']+&s=(?P<s>[A-Za-z0-9%+/=_-]{20,})"),
    ("eventgrid_sas_key", "aeg-sas-key",
     r"(?i)aeg-sas-key" + _PAIR_OP + r"(?P<s>[A-Za-z0-9+/]{43}=)"),
    # a key in its provider's URL: OpenWeatherMap's `appid=`, Alchemy's `/v2/<key>`
    ("openweathermap_appid", "openweathermap",
     r"(?i)openweathermap\.org/[^\s\"']*?[?&]appid=(?P<s>[a-f0-9]{32})(?![a-f0-9])"),
    ("alchemy_url_key", "alchemy",
     r"(?i)\b[\w-]+\.(?:g\.)?alchemy(?:api)?\.(?:io|com)/v2/(?P<s>[A-Za-z0-9_-]{32})(?![\w-])"),
    # a reCAPTCHA secret key (`6L…`, 40 characters) given as its `secret=` field
    ("recaptcha_secret", "secret=", r"(?i)(?:^|[\s\"'?&])secret=(?P<s>6L[A-Za-z0-9_-]{38})(?![\w-])"),
    # ---- added after Samsung/CredSweeper's samples (held out until the forty-ninth round's figures, development since)
    # (40 random characters and an 8-character checksum: one more glued on is no token of the form)
    ("cloudflare_api_token", "cfat_|cfut_|cfk_", _tok(r"cf(?:at|ut|k)_", _MIX + r"[A-Za-z0-9]{48}")),
    # (not an API host's name, `host = akab-….luna.akamaiapis.net` in an `.edgerc`: its account's address)
    ("akamai_edgegrid", "akab-", _tok(r"akab-", r"[0-9a-z]{16}-[0-9a-z]{16}", _ED + r"(?!\.luna\.akamaiapis\.net)")),
    ("defined_networking", "dnkey-", _tok(r"dnkey-", r"[A-Z2-7]{26}-[A-Z2-7]{52}")),
    ("docker_swarm_join", "swmtkn-1-", _tok(r"SWMTKN-1-", r"[a-z0-9]{50}-[a-z0-9]{25}")),
    ("docker_swarm_unlock", "swmkey-1-", _tok(r"SWMKEY-1-", r"[A-Za-z0-9+/]{43}", r"(?![A-Za-z0-9+/=])")),
    # a Bitbucket Data Center HTTP access token: `BBDC-` and the base64 of its numeric id, `:` and random bytes
    ("bitbucket_http_access", "bbdc-", _tok(r"BBDC-", r"[MNO][A-Za-z0-9_-]{43}", _ED)),
    ("together_ai", "tgp_v1_", _tok(r"tgp_v1_", r"[A-Za-z0-9_-]{43}", _ED)),
    ("llama_cloud", "llx-", _tok(r"llx-", r"(?=[A-Za-z0-9_-]*[0-9])(?=[A-Za-z0-9_-]*[A-Z])[A-Za-z0-9_-]{48}", _ED)),
    ("postman_collection", "pmat-", _tok(r"PMAT-", r"(?=[A-Z0-9]*[0-9])[A-Z0-9]{26}")),
    ("wundergraph_cosmo", "cosmo_", _tok(r"cosmo_", _HEX + r"{32}")),
    ("instagram_access", "igqvj", _tok(r"IGQVJ", r"[A-Za-z0-9_=-]{100,}", r"(?![A-Za-z0-9_=-])")),
    ("posthog_secret", "phs_", _tok(r"phs_", _MIX + r"[A-Za-z0-9]{40,60}")),
    ("gitlab_runner_registration_new", "glrtr-", _tok(r"glrtr-", r"[A-Za-z0-9_-]{20,}", _ED)),
    ("gitlab_workspace", "glwt-", _tok(r"glwt-", r"[A-Za-z0-9_-]{20,}", _ED)),
    # a Dropbox long-lived access token: 11 characters, ten `A`, 43 more (its `sl.` tokens are short-lived)
    ("dropbox_long_lived", "aaaaaaaaaa",
     r"(?<![A-Za-z0-9+/_=-])(?P<s>[A-Za-z0-9]{11}AAAAAAAAAA[A-Za-z0-9_=-]{43})(?![A-Za-z0-9+/_=-])"),
    # an NTLM authenticate message (type 3: `NTLMSSP\0` and 3, base64) holds the user's hashed response
    ("ntlm_authenticate", "tlrmtvntuaad", _tok(r"TlRMTVNTUAAD", r"[A-Za-z0-9+/]{40,}={0,2}", r"(?![A-Za-z0-9+/=])")),
    # libcurl's options that take a password, a user:password or a bearer token, given a literal
    ("curl_option", "curlopt_",
     r"CURLOPT_(?:PROXY)?(?:PASSWORD|USERPWD|KEYPASSWD|SSLKEYPASSWD|XOAUTH2_BEARER|TLSAUTH_PASSWORD)[ \t]*,[ \t]*"
     r"L?\"(?P<s>[^\"\n]{3,})\""),
    # curl's bearer token flag; PowerShell's ConvertTo-SecureString given its text by position (quoted, a quote
    # escaped inside a string, or bare), after any of its own switches
    ("curl_oauth2_bearer", "--oauth2-bearer", r"--oauth2-bearer(?:[ \t]+|=)" + _ARG),
    ("powershell_securestring", "convertto-securestring",
     r"(?i)ConvertTo-SecureString(?:[ \t]+-(?:String|Force|AsPlainText)\b)*[ \t]+"
     # (a cmdlet's name after it is a list's next one: highlight.js' `ConvertTo-SecureString Copy-Item …`)
     r"(?:\\?(?P<q>[\"'])(?P<s>[^\"'\\\n$]{4,})\\?(?P=q)|(?!" + _PS_VERB + r"-[A-Z][A-Za-z]+(?![^\s;|)]))"
     r"(?P<s2>[^\s\"'$(\\-][^\s\"'`;|)]*))"),
    # a JSON Web Key's private members (`d`, RSA's primes and exponents, a symmetric key's `k`): base64url with
    # mixed case and a digit
    ("jwk_private", ("\"d\"", "\"k\"", "\"p\"", "\"q\"", "\"dp\"", "\"dq\"", "\"qi\""),
     r"\"(?:d|k|p|q|dp|dq|qi)\"[ \t]*:[ \t]*\"(?P<s>(?=[A-Za-z0-9_-]*[0-9])(?=[A-Za-z0-9_-]*[a-z])"
     r"(?=[A-Za-z0-9_-]*[A-Z])[A-Za-z0-9_-]{22,})\""),
    # ---- added after praetorian-inc/titus' new cases (held out until the fiftieth round's figures, development since)
    # Supabase's secret API key; Branch's live and test keys; CodeRabbit's, Friendli's, Zuplo's, Coze's and
    # Mergify's tokens; Plaid's access tokens; WakaTime's `waka_` key
    ("supabase_secret_key", "sb_secret_", _tok(r"sb_secret_", r"[A-Za-z0-9_-]{31,64}", _ED)),
    ("branch_io_key", "key_live_|key_test_", _tok(r"key_(?:live|test)_", _MIX + r"[A-Za-z0-9]{32}")),
    ("coderabbit_token", "cr-", _tok(r"cr-", _HEX + r"{58}", _ED)),
    ("friendli_token", "flp_", _tok(r"flp_", _MIX + r"[A-Za-z0-9]{46}")),
    ("zuplo_api_key", "zpka_", _tok(r"zpka_", _HEX + r"{32}_" + _HEX + r"{8}")),
    ("coze_pat", "pat_", _tok(r"pat_", _MIX + r"[A-Za-z0-9]{64}")),
    ("mergify_application_key", "mergify_application_key_",
     _tok(r"mergify_application_key_", r"[A-Za-z0-9_-]{40,}", _ED)),
    ("plaid_access_token", "access-production-|access-sandbox-|access-development-",
     _tok(r"access-(?:production|sandbox|development)-", _HEX + r"{8}-(?:" + _HEX + r"{4}-){3}" + _HEX + r"{12}", _ED)),
    ("wakatime_key", "waka_",
     _tok(r"waka_", r"(?:" + _HEX + r"{8}-(?:" + _HEX + r"{4}-){3}" + _HEX + r"{12}|" + _HEX + r"{36})", _ED)),
    # `key_` and hex of the lengths Cursor's (64), Retell's (28) and Runway's (128) keys have; Scale's `live_` keys
    ("hex_key_token", "key_", _tok(r"key_", r"(?:" + _HEX + r"{128}|" + _HEX + r"{64}|" + _HEX + r"{28})")),
    ("scale_api_key", "live_", _tok(r"live_(?:auth_)?", _HEX + r"{32}")),
    # an Azure DevOps personal access token of the 84-character form (`JQQJ` at 52, `AZDO` at 76)
    ("azure_devops_pat_84", "=AZDO",
     _B + r"[A-Za-z0-9]{52}JQQJ[0-9]{2}[A-Za-z0-9]{18}AZDO[A-Za-z0-9]{4,5}" + _E),
    # a Google API key (`AIzaSy…`) base64-encoded, as a CI variable or a Kubernetes Secret holds it
    ("google_api_key_base64", "=QUl6YVN5", _B + r"QUl6YVN5[A-Za-z0-9+/]{44}(?:={0,2})(?![A-Za-z0-9+/=])"),
    # ---- credential files
    ("netrc", "password", r"(?im)^\s*machine\s+\S+(?:\s+login\s+\S+)?\s+password\s+(?P<s>\S+)"),
    # (not a table's column: `password varchar(255),`, a type and its size)
    ("netrc_password_line", "password",
     r"(?m)^\s*password\s+(?![A-Za-z][A-Za-z0-9]*\(\d+(?:,\s*\d+)?\),?\s*$)(?P<s>(?=\S*[0-9!@#%^&*+=~])\S{6,})\s*$"),
    # (libpq's fields escape `:` and `\` with a backslash: an IPv6 host `\:\:1`, a user `us\:er`; the password is the
    # field after the fourth unescaped `:`)
    ("pgpass", ":5432:|:5433:|:6432:|:*:",
     r"(?m)^(?:(?:[A-Za-z0-9_.*-]|\\[:\\])+|\[[0-9a-f:]+\]):(?:5432|5433|6432|\*):(?:[\w.*-]|\\[:\\])+:"
     r"(?:[\w.@*-]|\\[:\\])+:(?P<s>[^\s:]\S*)$"),
    ("putty_private_mac", "private-mac:|private-hash:", r"Private-(?:MAC|Hash):\s*(?P<s>[0-9a-f]{40,64})"),
    ("docker_config_auth", "\"auth\"", r"\"auth\"\s*:\s*\"(?P<s>[A-Za-z0-9+/]{12,}={0,2})\""),
    # ---- added after CyclingBits/llm-secret-scanner's fixtures (held out until the fifty-third round's figures)
    # Windows' `net use`: the argument after the share that is no option (`/user:…`, `/persistent:…`) and no `*` (a
    # prompt) is the password, before or after the options
    ("net_use_password", "net use",
     r"(?i)\bnet[ \t]+use(?:[ \t]+(?:[a-z]:|\*))?[ \t]+(?:\\\\|//)[^\s\"']+(?:[ \t]+/[^\s]+)*[ \t]+"
     r"(?P<s>[^\s/*\"'][^\s\"']*)"),
    # Gradle's signing config and repository credentials in Groovy's command syntax, no `=` (`storePassword "…"`,
    # `keyPassword '…'`, `password "…"`), alone on its line
    ("gradle_password_command", "storepassword|keypassword|password \"|password '",
     r"(?m)^[ \t]*(?:storePassword|keyPassword|password)[ \t]+(?P<q>[\"'])(?P<s>[^\"'\n]+)(?P=q)[ \t]*\r?$"),
    # FTP's `PASS` command in a script (`quote PASS …`, a here-document's `USER app` then `PASS …`)
    ("ftp_pass_command", "=PASS ", r"(?m)^[ \t]*(?:(?:quote|literal)[ \t]+)?PASS[ \t]+(?P<s>\S+)[ \t]*\r?$"),
    # ---- added after testpatterndev/patterns' credential test cases (held out until the fifty-fourth round's figures)
    # PowerShell's NetworkCredential built from literals (`[Net.NetworkCredential]::new("u", "p")`, `New-Object
    # System.Net.NetworkCredential("u", "p")`): its second argument
    ("powershell_network_credential", "networkcredential",
     r"(?i)NetworkCredential\]?(?:::new)?[ \t]*\([ \t]*(?P<q>[\"'])[^\"'\n]*(?P=q)[ \t]*,[ \t]*(?P<vq>[\"'])"
     r"(?P<s>[^\"'\n]+)(?P=vq)"),
    # schtasks' run-as password (`schtasks /create … /ru DOMAIN\svc /rp …`)
    ("schtasks_password", "/rp ", r"(?i)\bschtasks(?:\.exe)?\b[^\n]*?[ \t]/rp[ \t]+(?P<s>[^\s/\"'*][^\s\"']*)"),
    # a web session's cookie, a bearer credential while it lives: Java's, PHP's, ASP.NET's, Microsoft Entra's
    ("session_cookie", "jsessionid|phpsessid|asp.net_sessionid|estsauth",
     r"(?i)\b(?:JSESSIONID|PHPSESSID|ASP\.NET_SessionId|ESTSAUTH(?:PERSISTENT|LIGHT)?)[ \t]*[=:][ \t]*"
     # (a call's name is no cookie's value: Shiro's test `jsessionid = getSessionCookie(loginPage)`)
     r"(?P<s>[A-Za-z0-9%._+/-]{16,}+)(?!\()"),
    # Jenkins' encrypted secret in its files (`<password>{AQAAABAAAAAQ…}</password>`): its master key decrypts it
    ("jenkins_encrypted_secret", "{aqaaab", r"\{(?P<s>AQAAAB[A-Za-z0-9+/]{20,}={0,2})\}"),
    # a Windows answer file's password (`<AdministratorPassword><Value>…</Value>`, `<Password><Value>…`), not the
    # mask Windows writes where it removed one (`*SENSITIVE*DATA*DELETED*`)
    ("unattend_password_value", "<value>",
     r"(?i)<(?:AdministratorPassword|Password|AutoLogon)>[ \t]*<Value>(?!\*SENSITIVE\*DATA\*DELETED\*)"
     r"(?P<s>[^<\n]+)</Value>"),
)


def _hint_literals(hint: str | tuple[str, ...]) -> tuple[str, ...]:
    """A row's hint as literals, each with a leading `=` when case-sensitive."""
    if isinstance(hint, tuple):
        return hint
    if hint.startswith("~"):
        return (hint,)
    return tuple("=" + h for h in hint[1:].split("|")) if hint.startswith("=") else tuple(hint.split("|"))


# The table compiled for the whole-text scan (secret_tokens.py): each row's hints as literals, lowercased where
# they are not case-sensitive, and its pattern.
_RULES = tuple((rid, tuple(h[1:] if h.startswith("=") else h.lower() for h in _hint_literals(hint)
                          if not h.startswith("~")), re.compile(pattern))
               for rid, hint, pattern in RULES)
