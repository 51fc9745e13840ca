package dev.pulsebus.command;

/** The sender's role in the chat, as the platform reports it. */
public enum SenderRole {
    MEMBER,
    ADMIN,
    OWNER
}
