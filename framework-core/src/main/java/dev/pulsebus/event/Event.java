package dev.pulsebus.event;

import java.time.Instant;

/**
 * An event from a chat platform, after OneBot 12: a {@link MessageEvent message}, a
 * {@link NoticeEvent notice}, a {@link RequestEvent request} or a {@link MetaEvent meta} event, each
 * with its {@code detail_type} and {@code sub_type}, the bot it reached ({@link #self()}), an id and a
 * time. Immutable records. User, chat and bot ids are at most {@value #MAX_ID_LENGTH} characters: a record
 * refuses a longer one ({@link IllegalArgumentException}), which an adapter counts as a bad event.
 */
public sealed interface Event permits MessageEvent, NoticeEvent, RequestEvent, MetaEvent {

    /** The longest user, group, guild, channel or bot ({@link Self}) id an event takes. */
    int MAX_ID_LENGTH = 64;

    /** Unique per platform; platforms retransmit, and the pipeline drops an id it has just seen. */
    String id();

    Instant time();

    Self self();

    /** {@code message}, {@code notice}, {@code request} or {@code meta}. */
    String type();

    String detailType();

    /** May be empty, never {@code null}. */
    String subType();
}
