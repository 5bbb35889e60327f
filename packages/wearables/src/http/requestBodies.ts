/**
 * How the wearables API reads request bodies: as Open Wearables (FastAPI + pydantic) does. FastAPI reads a body
 * without a Content-Type as JSON but not a `text/plain` one (fastapi/fastapi#3456, `fastapi/routing.py`), so
 * text stays a 415; pydantic models ignore undeclared fields unless they say `extra="forbid"`, which the
 * anchor's request models (`backend/app/schemas/model_crud/user_management/user.py`: `UserCreate`) do not; their
 * optional fields are `str | None`, so `null` is the field left out.
 */
import type { BodyLeniency } from "@platform/kernel";

export const openWearablesRequestBodies: BodyLeniency = {
  jsonWithoutContentType: true,
  ignoreUnknownFields: true,
  nullAsAbsent: true,
};
