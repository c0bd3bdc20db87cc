"""Cases as columns: records and DataFrame cells read into tool-id columns
without an object per case, and cases built in bulk when a metric needs them.
:func:`case_from_record` is the reference reading of one record; the columnar
reading (:func:`ingest`) takes only what it takes and gives what it gives."""

from agentmetrics._columnar._arrow import check_unique_columns, holds_call_objects, records_from_arrow
from agentmetrics._columnar._arrow_calls import ArrowCalls, ArrowCases, read_arrow_calls
from agentmetrics._columnar._decode import ArgumentIds, Decoded, LineDecoder, can_decode_fast
from agentmetrics._columnar._ingest import (
    BadName,
    Ingested,
    LazyCases,
    Reader,
    SideColumns,
    Vocabulary,
    cases_from_records,
    ingest,
    paused_gc,
)
from agentmetrics._columnar._records import LINE_KEYS, case_from_record, check_input_format

__all__ = ["LINE_KEYS", "ArrowCalls", "ArrowCases", "BadName", "Ingested", "LazyCases",
           "ArgumentIds", "Decoded", "LineDecoder", "Reader", "SideColumns", "Vocabulary", "can_decode_fast",
           "case_from_record", "cases_from_records", "check_input_format", "check_unique_columns",
           "holds_call_objects",
           "ingest", "paused_gc", "read_arrow_calls", "records_from_arrow"]
