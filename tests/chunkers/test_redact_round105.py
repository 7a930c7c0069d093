"""Hundred-and-fifth round: an AWS API model (botocore's `service-2.json`, the SDKs' `api-2.json`), read held out
after round 104 (figures: benchmarks/secrets_recall.md, round 105). Its shapes and operations are named for what
they carry (`ApiKeyCredential`, `GetAcmeExternalAccountBindingCredentials`), read as sections of secrets; a member's
`shape` is a type's name, its `documentation` a sentence, `required` its members' names. Values made up where a
secret is meant."""

import json

from chunkers.redact import REDACTED
from tests.chunkers.redact_asserts import GENERATED, bodies, pair_test

MODEL = {
    "version": "2.0",
    "metadata": {"apiVersion": "2023-05-19", "protocol": "rest-json", "serviceId": "AppFabric"},
    "operations": {
        "GetAcmeExternalAccountBindingCredentials": {
            "name": "GetAcmeExternalAccountBindingCredentials",
            "http": {"method": "GET", "requestUri": "/"},
            "input": {"shape": "GetAcmeExternalAccountBindingCredentialsRequest"},
            "output": {"shape": "GetAcmeExternalAccountBindingCredentialsResponse"},
            "errors": [{"shape": "AccessDeniedException"}, {"shape": "ThrottlingException"}],
        },
    },
    "shapes": {
        "ApiKeyCredential": {
            "type": "structure",
            "required": ["apiKey"],
            "members": {
                "apiKey": {"shape": "SensitiveString2048", "documentation": "<p>An API key for an application.</p>"},
            },
        },
        "BasicAuthCredentials": {
            "type": "structure",
            "required": ["username", "password"],
            "members": {"username": {"shape": "Username"}, "password": {"shape": "Password"}},
        },
        "SecretsList": {"type": "list", "member": {"shape": "__listOf__integerMin1Max2147483647"}},
        "ClientSecretConfig": {"type": "structure", "members": {"Secret": {"shape": "XmlStringMaxLen256List"}}},
    },
}


def test_an_aws_api_models_shapes_are_kept():
    """Every value of the model is a name, a type's name or documentation: nothing is redacted."""
    out = bodies("botocore/data/appfabric/2023-05-19/service-2.json", json.dumps(MODEL, indent=1))
    assert REDACTED not in out, [line for line in out.splitlines() if REDACTED in line]
    assert "apiKey:shape = SensitiveString2048" in out and "required:1 = password" in out, out


def test_a_secret_in_the_model_is_still_redacted():
    """A value under a secret's name that is no type's name, a member's `documentation` holding a token, a `shape`
    that is a key by its form: redacted."""
    model = json.loads(json.dumps(MODEL))
    model["shapes"]["BasicAuthCredentials"]["members"]["password"]["default"] = GENERATED
    model["shapes"]["ApiKeyCredential"]["members"]["apiKey"]["shape"] = "AKIAIOSFODNN7EXAMPLF"
    out = bodies("service-2.json", json.dumps(model, indent=1))
    assert GENERATED not in out and "AKIAIOSFODNN7EXAMPLF" not in out, out


PAIRS = [
    # a key's kind (AWS KMS' examples: `"CustomerMasterKeySpec": "SYMMETRIC_DEFAULT"`)
    ('"CustomerMasterKeySpec": "SYMMETRIC_DEFAULT",', f'"CustomerMasterKey": "{GENERATED}",', GENERATED),
]

test_a_look_alike_is_kept_and_its_twin_redacted = pair_test(PAIRS)
