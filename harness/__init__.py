"""What the tests and the benchmarks both drive: `cardems serve` in a process of its own and
a plain HTTP client for it (`http`), private Redis servers and clusters (`redis_server`), and
the whole deployment under load with faults (`load`)."""
