"""Seventy-ninth round: IdentityServer4, OpenIddict, FreshRSS, Woodpecker, NetBox (real code) and SasanLabs'
VulnerableApp read held out after the seventy-eighth round (figures: benchmarks/secrets_recall.md, round 79). Values
made up where a secret is meant."""

from tests.chunkers.redact_asserts import GENERATED, bodies, round_tests


KEPT = [
    # an expression going on below: a C# switch, a ternary, `??` between two members
    "            context.AccessToken = context.EndpointType switch",
    "            context.RefreshToken = context.ExtractRefreshToken ?",
    "        context.UserInfoRequest.AccessToken = context.BackchannelAccessToken ?? "
    "context.FrontchannelAccessToken ??",
    # a media type's structured suffix
    '            public const string AccessToken = "at+jwt";',
    '        public string AccessTokenJwtType { get; set; } = "at+jwt";',
    # a CI step's reference to a stored secret by its name
    "          from_secret: aws_secret_key",
    # punctuation standing for a value
    "OIDC_CLIENT_SECRET=???",
    # a label with HTML's inline markup
    "\t\t'password_form' => 'Passwort<br /><small>(für die Anmeldemethode per Webformular)</small>',",
    "\t\t'password_api' => 'API password<br /><small>(e.g., for mobile apps)</small>',\t// TODO",
]


REDACTED_CASES = [
    # a value ending in `?` that is no member
    ("db_password = hunter2 ?", "hunter2"),
    # the same forms under a password's name, a generated value
    ('    password = "at+jwt";', "at+jwt"),
    (f"          from_secret_key: {GENERATED}", GENERATED),
    ("OIDC_CLIENT_SECRET=?a9Zq8vN3xL0?", "?a9Zq8vN3xL0?"),
    (f"    'password' => '{GENERATED}<br />',", GENERATED),
]

test_a_look_alike_is_kept, test_a_secret_is_redacted = round_tests(KEPT, REDACTED_CASES)


def test_a_license_s_and_a_project_s_key_are_their_ids():
    body = bodies("hook.json", '{"repository": {"license": {"key": "apache-2.0"}, "project": {"key": "DEV"}}, '
                  f'"license": {{"key": "{GENERATED}"}}, "keys": {{"key": "Zq8fK2pLm9xTv4RwYb7N"}}}}')
    assert "apache-2.0" in body and "DEV" in body
    assert GENERATED not in body and "Zq8fK2pLm9xTv4RwYb7N" not in body


def test_an_msbuild_property_listing_targets_is_no_connection_string():
    body = bodies("Publishing.targets", "<Project><PropertyGroup><InsertWebConfigConnectionStringsDependsOn>"
                  "PreInsert;Insert</InsertWebConfigConnectionStringsDependsOn><WebConfigConnectionStrings "
                  "Condition=\"'$(X)'==''\">Server=db;Password=Zq8fK2pLm9xTv4Rw</WebConfigConnectionStrings>"
                  "</PropertyGroup></Project>")
    assert "PreInsert;Insert" in body and "'$(X)'==''" in body
    assert "Zq8fK2pLm9xTv4Rw" not in body
