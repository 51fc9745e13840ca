package dev.pulsebus.pipeline;

/** What the pipeline did with an inbound event. */
public enum InboundResult {
    /** Seen before (same platform and event id): dropped, counted. */
    DUPLICATE,
    /** A middleware dropped it. */
    DROPPED,
    /** A command took it (whatever the command's outcome); not published on the bus. */
    COMMAND,
    /** Published on the event bus. */
    PUBLISHED
}
