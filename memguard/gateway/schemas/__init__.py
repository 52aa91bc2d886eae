"""The HTTP API's request and response bodies (the OpenAPI document is generated from these).

Every model and field has a description and every model an example, so the OpenAPI document
(``/openapi.json``, rendered at ``/docs``) reads as the reference; tests/test_gateway_docs.py
checks that none is missing.

Split by concern: ``common`` (field types, examples, model bases), ``facts`` (write, search, list,
audit, provenance), ``lineage`` (revoke, endorse), ``admin`` (health and metadata), ``tokens``
(the token service). Every model stays importable from here (the API docs look them up by name).
"""

from __future__ import annotations

from .admin import (
    HealthOut,
    ProtectedResourceOut,
    ReadyOut,
)
from .common import (
    FACT_ID as FACT_ID,
)
from .common import (
    PLAIN as PLAIN,
)
from .common import (
    FactId as FactId,
)
from .common import (
    Namespace as Namespace,
)
from .common import (
    Plain as Plain,
)
from .common import (
    TrustName as TrustName,
)
from .facts import (
    AuditOut,
    BatchWriteIn,
    BatchWriteOut,
    FactListOut,
    FactOut,
    ProvenanceOut,
    SearchIn,
    SearchOut,
    UpdateIn,
    WriteIn,
    WriteOut,
)
from .facts import (
    PrincipalOut as PrincipalOut,
)
from .facts import (
    ScanOut as ScanOut,
)
from .facts import (
    SourceIn as SourceIn,
)
from .facts import (
    SourceOut as SourceOut,
)
from .facts import (
    TurnIn as TurnIn,
)
from .facts import (
    TurnOut as TurnOut,
)
from .facts import (
    WriterOut as WriterOut,
)
from .facts import (
    summary_line as summary_line,
)
from .lineage import (
    DomainSelectorIn as DomainSelectorIn,
)
from .lineage import (
    EndorseIn,
    EndorseOut,
    RevocationOut,
    RevokeIn,
    SelectorIn,
    SelectorOut,
)
from .lineage import (
    FactSelectorIn as FactSelectorIn,
)
from .lineage import (
    SubjectSelectorIn as SubjectSelectorIn,
)
from .lineage import (
    TurnSelectorIn as TurnSelectorIn,
)
from .lineage import (
    ValueSelectorIn as ValueSelectorIn,
)
from .tokens import (
    AuthServerMetadataOut,
    JwkOut,
    JwksOut,
    OAuthErrorOut,
    TokenExchangeForm,
    TokenResponseOut,
)

__all__ = [
    "AuditOut",
    "AuthServerMetadataOut",
    "BatchWriteIn",
    "BatchWriteOut",
    "EndorseIn",
    "EndorseOut",
    "FactListOut",
    "FactOut",
    "HealthOut",
    "JwkOut",
    "JwksOut",
    "OAuthErrorOut",
    "ProtectedResourceOut",
    "ProvenanceOut",
    "ReadyOut",
    "RevocationOut",
    "RevokeIn",
    "SearchIn",
    "SearchOut",
    "SelectorIn",
    "SelectorOut",
    "TokenExchangeForm",
    "TokenResponseOut",
    "UpdateIn",
    "WriteIn",
    "WriteOut",
]
