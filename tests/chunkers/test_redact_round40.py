"""Fortieth round: sonar-text's Django examples held two forms of a Django secret key the redactor missed: the key
`startproject` generates (`django-insecure-` and 50 characters of its alphabet, punctuation among them) under a name
that says nothing (`KEY = '…'`), and a secret's literal default given by keyword to django-environ's or
python-decouple's lookup (`env("SECRET_KEY", default="…")`; given by position it was found already). Kept: the
prefix before a placeholder, a lookup's default under a name that is no secret's, a default that is a placeholder.
Values are made up here."""

from tests.chunkers.redact_asserts import GENERATED, round_tests

DJANGO = "django-insecure-q8&z2m!x7#k(p4)w9=v3+t6_n1^r5*b0@y%c8-j2h4l6s9d1f3g5"

KEPT = [
    'PREFIX = "django-insecure-"  # then 50 characters',
    "startproject writes django-insecure-<generated> into settings.py",
    'DEBUG = env("DEBUG", default="True")',
    'SECRET_KEY = env("SECRET_KEY", default="change-me")',
    'SECRET_KEY = env("SECRET_KEY", default=os.environ["FALLBACK"])',
]

REDACTED = [
    (f"KEY = '{DJANGO}'", DJANGO),
    (f'"{DJANGO}"', DJANGO),
    (f'SECRET_KEY = env("SECRET_KEY", default="{GENERATED}")', GENERATED),
    (f'API_TOKEN = config("API_TOKEN", default="{GENERATED}")', GENERATED),
    (f"SECRET_KEY = env.str('SECRET_KEY', default = '{GENERATED}')", GENERATED),
]

test_a_look_alike_is_kept, test_a_secret_is_redacted = round_tests(KEPT, REDACTED)
