"""A Python client for Cardems: typed results, safe retries, a live event iterator, and
`run_bot`, which plays one seat of a match with any object that can choose a pass, a play
and a moon choice."""

from cardems_client.bot import Bot, Move, load_bot, run_bot
from cardems_client.client import Client, Retrying
from cardems_client.errors import (
    CardemsError,
    Forbidden,
    GaveUp,
    IllegalMove,
    InvalidRequest,
    NotFound,
    NotNow,
    PayloadTooLarge,
    Problem,
    RateLimited,
    Unauthorized,
    Unavailable,
    VersionConflict,
)
from cardems_client.models import (
    AnalysedRound,
    Analysis,
    AnalysisOption,
    AuditPlay,
    Card,
    CreatedMatch,
    Decision,
    Deck,
    Event,
    EventPage,
    Health,
    IntegrityReport,
    MatchView,
    PlayOut,
    Progress,
    ReplayView,
    Rules,
    Scores,
    Seat,
    SeatOut,
    SeatSummary,
    TakenTrick,
    Trick,
    TrickAudit,
    You,
)
from cardems_client.retry import RetryPolicy

__all__ = [
    "AnalysedRound", "Analysis", "AnalysisOption", "AuditPlay", "Bot", "Card", "CardemsError",
    "Client", "CreatedMatch", "Decision", "Deck", "Event", "EventPage", "Forbidden", "GaveUp",
    "Health", "IllegalMove", "IntegrityReport", "InvalidRequest", "MatchView", "Move", "NotFound",
    "NotNow", "PayloadTooLarge", "PlayOut", "Problem", "Progress", "RateLimited", "ReplayView",
    "RetryPolicy", "Retrying", "Rules", "Scores", "Seat", "SeatOut", "SeatSummary", "TakenTrick",
    "Trick", "TrickAudit", "Unauthorized", "Unavailable", "VersionConflict", "You", "load_bot",
    "run_bot",
]
