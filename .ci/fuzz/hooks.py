# schemathesis hooks for the fuzz run (loaded through SCHEMATHESIS_HOOKS).
#
# A well-formed Idempotency-Key gets a fresh prefix on every case: schemathesis draws header values from a
# small pool, and a key reused with another body is rightly a 422, which would hide every create body
# behind that answer. Malformed keys are left alone, so their 400s are still exercised.
import re
import uuid

import schemathesis

WELL_FORMED = re.compile(r"^[\x21-\x7e]{1,255}$")


@schemathesis.hook
def map_case(context, case):
    headers = case.headers or {}
    for name, value in list(headers.items()):
        if name.lower() == "idempotency-key" and isinstance(value, str) and WELL_FORMED.match(value):
            headers[name] = (uuid.uuid4().hex + value)[:255]
    return case
