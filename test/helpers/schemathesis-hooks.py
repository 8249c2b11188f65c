"""schemathesis hooks of the fuzzing suite (test/e2e/fuzz.e2e-spec.ts), loaded through SCHEMATHESIS_HOOKS.

The document says `model` is a string, as it is: the catalog is the deployment's, not the API's. Generated from that
alone, every /v1 task request names no model and stops at 400 ModelNotFound, so the worker, the providers and the
success schemas would never be reached. Here the valid requests name a model of the running catalog, which the suite
passes in GATEWAY_FUZZ_CATALOG ({capability: [model ids]}); the invalid ones still name anything.
"""

import json
import os

import schemathesis

CAPABILITY_OF_PATH = {
    "/v1/embeddings": "embeddings",
    "/v1/chat/completions": "chat",
    "/v1/responses": "chat",
    "/v1/images/edits": "image-edit",
}


@schemathesis.hook
def before_load_schema(context, raw_schema):
    catalog = json.loads(os.environ.get("GATEWAY_FUZZ_CATALOG", "{}"))
    components = raw_schema.get("components", {}).get("schemas", {})
    for path, capability in CAPABILITY_OF_PATH.items():
        body = raw_schema.get("paths", {}).get(path, {}).get("post", {}).get("requestBody")
        if body is None or not catalog.get(capability):
            continue
        schema = body["content"]["application/json"]["schema"]
        if "$ref" in schema:
            schema = components[schema["$ref"].rsplit("/", 1)[1]]
        model = schema.get("properties", {}).get("model")
        if model is not None:
            model["enum"] = catalog[capability]
