"""Schemathesis hooks for lib-server: signs in with POST /v1/sessions and
sends the token as `Authorization: Bearer ...` on every other request.

The token never leaves this process (no argv, no environment, no file):
the server's URL and the demo user come from the environment, the token is
asked for here. A signed-out token (DELETE /v1/sessions/current revokes it)
gets a 401, which makes schemathesis ask for a new one (`retry_on`); the
sign-out itself runs with a token of its own, so it cannot revoke the one
the other operations share.
"""

import json
import os
import urllib.request

import schemathesis
from hypothesis.internal import lambda_sources

# Debian 12's Python 3.11.2 can raise SystemError ("AST constructor recursion
# depth mismatch", CPython gh-106905, fixed in 3.11.5) from ast.parse when
# hypothesis reads a lambda's source only to describe it; a description is
# all that is lost, so answer "unknown" as hypothesis itself does when confused.
_describe_lambda = lambda_sources._lambda_description


def _describe_lambda_safely(f):
    try:
        return _describe_lambda(f)
    except SystemError:
        return "lambda: <unknown>"


lambda_sources._lambda_description = _describe_lambda_safely

SERVER = os.environ["LIB_SCHEMATHESIS_SERVER"]
USER = os.environ.get("LIB_SCHEMATHESIS_USER", "alice")


def sign_in():
    body = json.dumps({"username": USER, "password": USER + "-demo"}).encode()
    request = urllib.request.Request(
        SERVER + "/v1/sessions", data=body, method="POST", headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=10) as answer:
        return json.load(answer)["token"]


@schemathesis.auth(retry_on=[401]).skip_for(method="POST", path="/v1/sessions")
class LibSession:
    def get(self, case, context):
        return sign_in()

    def set(self, case, token, context):
        if case.operation.method.upper() == "DELETE" and case.operation.path == "/v1/sessions/current":
            token = sign_in()
        case.headers = case.headers or {}
        case.headers["Authorization"] = "Bearer " + token
