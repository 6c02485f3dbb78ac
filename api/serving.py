"""Production serving: gunicorn workers, each building its own app after the fork."""

from __future__ import annotations

from typing import Any

from gunicorn.app.base import BaseApplication

from api.app import Settings, create_app


class _Server(BaseApplication):  # type: ignore[misc]
    def __init__(self, settings: Settings, options: dict[str, Any]) -> None:
        self._settings = settings
        self._options = options
        super().__init__()

    def load_config(self) -> None:
        for key, value in self._options.items():
            self.cfg.set(key, value)

    def load(self) -> Any:
        return create_app(self._settings)


def run_gunicorn(settings: Settings, host: str, port: int, workers: int, threads: int) -> int:
    options = {"bind": f"{host}:{port}", "workers": workers, "threads": threads,
               "worker_class": "gthread", "accesslog": "-", "graceful_timeout": 5,
               "timeout": 60}
    _Server(settings, options).run()
    return 0
