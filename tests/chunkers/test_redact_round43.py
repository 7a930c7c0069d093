"""Forty-third round: sonar-text's retired specifications (held out until the forty-first round's figures) missed
provider forms the table had no row for, or a row too narrow for: Heroku's key as `HRKU-` and a UUID, Riot's
`RGAPI-`, RapidAPI's `…msh…p1…jsn…`, a Vault batch token before `hvb.`, Firebase's legacy `…:APA91b…`, a Bot
Framework Direct Line secret, an Event Grid signature and `aeg-sas-key`, a SAS signature in base64url or named in a
dictionary or a call, an Azure Function's `code` in a request's parameters, OpenWeatherMap's `appid`, Alchemy's URL,
reCAPTCHA's `secret=`, a shorter Mapbox secret token. And it destroyed look-alikes: a scanner's `"secret_type"` label,
a secret store's path after a Bundler host's name, Perl's `$env{…}` as a URL's password. Values are made up here."""

from tests.chunkers.redact_asserts import round_tests

UUID = "5b1f0c9e-2a7d-4386-b0e9-f15c3a2d8e7f"
SIG = "Zq8vN3xL0pR7tY2wK5mB4cD_Hs9uE1gJ6fA0oI3nW-k"  # 43, base64url
FN = "Zq8vN3xL0pR7tY2wK5mB4cDHs9uE1gJ6fA0oI3nWkQ2rT7yU4iO8pL=="  # 54 and its pad
FCM = "cfUDlZL9YBQ:APA91b" + "Zq8vN3xL0pR7tY2wK5mB4cD_Hs9uE1gJ6fA0oI3nW-k" * 3
DIRECT_LINE = "JTYufYyH6Vg.Zq8vN3xL0pR7tY2wK5mB4cD_Hs9uE1gJ6fA0oI3nW-k"
BATCH = "b.AAAAAQ" + "Zq8vN3xL0pR7tY2wK5mB4cD_Hs9uE1gJ6fA0oI3nW-k" * 3

KEPT = [
    '"secret_type": "adafruit_io_key",',
    'BUNDLE_GITHUB__COM: "SSM:/#{ssm_env}/BUNDLE_GITHUB__COM",',
    'const MQURL = "amqp://admin:$env{admin_pwd}@host"',
    "xhr.setRequestHeader('Authorization', 'BotConnector ' + directLineSecret);",
    "url = 'http://api.openweathermap.org/data/2.5/weather?q=Paris&appid={key}'",
    'string parameters = $"secret={secretKey}&response={gToken}";',
    "r = requests.get(url, params={'code': 'authorization_code'})",
    "params.Add(\"sig\", signature);",
]

REDACTED = [
    (f'props.set("heroku-key", "HRKU-{UUID}")', UUID),
    (f"watcher = RiotWatcher('RGAPI-{UUID}')", UUID),
    ('"x-rapidapi-key": "6f1bbe24b9mshcbb5030202794a4p18f7d0jsndd55ab0f981d"', "cbb5030202794a4p18f7d0jsn"),
    (f"VAULT_TOKEN={BATCH}", BATCH[8:60]),
    (f'registerDevice("{FCM}")', FCM[20:80]),
    (f"xhr.setRequestHeader('Authorization', 'BotConnector ' + '{DIRECT_LINE}');", DIRECT_LINE),
    (f"src='https://webchat.botframework.com/embed/MyBot?s={DIRECT_LINE}'", DIRECT_LINE),
    ("Authorization: SharedAccessSignature r=https%3a%2f%2ftopic.eventgrid.azure.net%2fapi%2fevents&e=1%2f1%2f2030"
     f"&s={SIG}", SIG),
    ('"aeg-sas-key": "vobPdVO3kYZKwbnil2IsmyrR/gTYenN4vAZEGHUfhj8=",', "vobPdVO3kYZKwbnil2IsmyrR"),
    (f"'sig': '{SIG}'", SIG),
    (f'-d "sig={SIG}"', SIG),
    ("https://app.azurewebsites.net:443/api/wf/triggers/manual/invoke?api-version=2022-05-01&sp=%2Ftriggers&sv=1.0"
     f"&sig={SIG}", SIG),
    (f"params={{'code': '{FN}'}}", FN),
    ("url = 'http://api.openweathermap.org/data/2.5/weather?q=Paris&appid=ae73acab47d0fc4b71b634d943b00518'",
     "ae73acab47d0fc4b71b634d943b00518"),
    ("'1': 'https://eth-mainnet.alchemyapi.io/v2/6wgSNoYMEzJ2s47Q593p9-9Xg5clkmAB',", "6wgSNoYMEzJ2s47Q593p9"),
    ('string parameters = $"secret=6LcaQa4mAAAAAFvhmzAd2hErGBSt4FC-BPzm4cNS&response={gToken}";',
     "6LcaQa4mAAAAAFvhmzAd2hErGBSt4FC-BPzm4cNS"),
    ('android:value="sk.eyJ1IjoicGludGVyZXN0IiwiYSI6IlJFTU9WRUQifQ.FCS6VzbiUVLenbkIf6MPRg"', "FCS6VzbiUVLenbkIf6MPRg"),
    ("export BUNDLE_GEMS__CONTRIBSYS__COM=a1b2c3d4:e5f6a7b8", "e5f6a7b8"),
]

test_a_look_alike_is_kept, test_a_secret_is_redacted = round_tests(KEPT, REDACTED)
