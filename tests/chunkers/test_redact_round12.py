"""Twelfth round (issue 33): SonarSource's sonar-dotnet checks (a development corpus now). Their look-alikes that
the redactor destroyed are kept: a credential object's member that is no secret, a label to concatenate a value to,
a composite format's hole in a URL or a connection string, a bind parameter for the user, the name of where a
password is kept, a form field's name with leading underscores, code between two strings' ends. Their secrets
missed are found: a password's word glued to what comes before it in a query string, `passphrase=`, a long token
under `auth`, C#'s `Equals` with a comparison type or a `Token` member, a credential's constructor with the password
by position. Each look-alike has a secret twin that stays redacted. Values are made up here."""

from tests.chunkers.redact_asserts import GENERATED, pair_test, round_tests

PUNCT = "7Hq$zP2-mW9~vK4.xL8="

# (look-alike, its secret twin, the twin's secret): the twin is the same line with a secret in the value's place
PAIRS = [
    # a credential object's member that is no secret; the password member is one
    ('networkCredential.Domain = "hardcodedDomain";', f'networkCredential.Password = "{GENERATED}";', GENERATED),
    ('credentials.UserName = "svc-backup";', f'credentials.Secret = "{GENERATED}";', GENERATED),
    # a label to concatenate a value to: words, then `=` or `:` with a space
    ('const string passwordPrefixConst = "Password = ";', f'const string passwordPrefixConst = "Password = {PUNCT}";',
     PUNCT),
    ('var passwordPrefixVariable = "Db Password = ";', f'var passwordPrefixVariable = "Db Password = {GENERATED}";',
     GENERATED),
    # code between two strings' ends, `+` first and last
    ('a = "Server=db; Password = " + arg + secretConst + " suffix";',
     f'a = "Server=db; Password = {GENERATED}" + arg + secretConst + " suffix";', GENERATED),
    # a composite format's numbered hole in a URL's password, with an alignment too
    ('string c6 = String.Format("scheme://user:{0}@domain.com", pwd);',
     f'string c6 = String.Format("scheme://user:{GENERATED}@domain.com", pwd);', GENERATED),
    ('string c6 = String.Format("scheme://user:{0,-8}@domain.com", pwd);',
     f'string c6 = String.Format("scheme://user:{GENERATED}@domain.com", pwd);', GENERATED),
    # a hole with a format in a connection string's password, holes of names one after another
    ('a = String.Format("Server=db; Database=Test; Password={0:#,0.00}", arg);',
     f'a = String.Format("Server=db; Database=Test; Password={GENERATED}", arg);', GENERATED),
    ('a = $"Server=db; Database=Test; Password={arg}{secretConst}";',
     f'a = $"Server=db; Database=Test; Password={GENERATED}";', GENERATED),
    # a bind parameter for the user: any name (a password's must name it); the password beside it is still judged
    ('string q = "Server=db;Database=app;Password=:myPassword;User Id=:username;";',
     f'string q = "Server=db;Database=app;Password={GENERATED};User Id=:username;";', GENERATED),
    ('string q = "Server=db;Database=app;Password=@myPassword;User Id=@username;";',
     f'string q = "Server=db;Database=app;Password={GENERATED};User Id=@username;";', GENERATED),
    # the first of `;`-separated pairs in a quoted pair: its value ends at the `;`
    ('string query7 = "password=:password;user=:user;";', f'string query7 = "password={PUNCT};user=:user;";', PUNCT),
    # the name of where a password is kept (`secretName`'s kind: under it no value is redacted, so the twin drops
    # `Name`)
    ('string passwordName = "UserPasswordValue";', f'string password = "{GENERATED}";', GENERATED),
    # a form field's name with leading underscores, repeating the name that holds it
    ('string RequestVerificationToken = "__RequestVerificationToken";',
     f'string RequestVerificationToken = "__{GENERATED}";', GENERATED),
]

KEPT = [
    # the fixes' limits: a glued word with a plain word or a flag, a lexer's token compared, no literal
    'foo = "haspassword=true";',
    'foo = "nopassword=1";',
    'if (token.Equals("]]")) { }',
    'if last_token == "deadbeefdeadbeef":',
    'new NetworkCredential("username", secretConst);',
    'new NetworkCredential("username", "");',
    # `auth` as a name with a dotted module or a class as its value
    'auth = "django.contrib.auth.backends"',
    'auth = "HTTPBasicAuthHandler"',
]

REDACTED_LIMITS = [
    # a word then `:` with no space before it stays a value (`"application:" + appKey` is a secret's start)
    ('String password = "Password:";', "Password:"),
]

REDACTED_CASES = [
    # a password's word glued to what comes before it; `passphrase=`; the value ends at `;`, `&` or `,`
    ('foo = "foo=1password=S3crEt@123";', "S3crEt@123"),
    ('foo = "userpassword=S3crEt@123";', "S3crEt@123"),
    ('foo = "user/password=S3crEt@123";', "S3crEt@123"),
    ('string x4 = "passphrase=S3crEt@123";', "S3crEt@123"),
    (f'redis = "cache.example.net:6380,password={GENERATED},ssl=True"', GENERATED),
    # a long token under `auth` alone, after a property's accessors, by `+=`, after `?.`
    (f'string auth = "{GENERATED}";', GENERATED),
    (f'string x_auth {{ get; set; }} = "{GENERATED}";', GENERATED),
    (f'd_auth += "{GENERATED}";', GENERATED),
    (f'arg?.auth = "{GENERATED}";', GENERATED),
    # C#'s Equals: a comparison type after the name, a `Token` member with generated hex
    ('"31bf3856ad364e35".Equals(authToken, StringComparison.CurrentCulture);', "31bf3856ad364e35"),
    ('if (bar.test.test.Token.Equals("31bf3856ad364e35")) { }', "31bf3856ad364e35"),
    ('if ("31bf3856ad364e35".Equals(foo.GetToken())) { }', "31bf3856ad364e35"),
    # a credential's constructor with the password by position (NetworkCredential's already found by its rule)
    ('new NetworkCredential("username", "hardcoded", "domain");', "hardcoded"),
    ('new PasswordDeriveBytes("hardcoded", byteArray, cspParams);', "hardcoded"),
    (f'var kdf = new Rfc2898DeriveBytes("{PUNCT}", salt, 1000);', PUNCT),
    ('pa = new PasswordAuthentication("user", "s3cret!x".toCharArray());', "s3cret!x"),
]


test_a_look_alike_is_kept_and_its_twin_redacted = pair_test(PAIRS)


test_a_look_alike_is_kept, test_a_secret_is_redacted = round_tests(KEPT, REDACTED_CASES + REDACTED_LIMITS)
