package dev.pulsebus.server;

/** The server cannot start as configured: a bad flag, a broken config file, a value out of range. */
public final class ConfigException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public ConfigException(String message) {
        super(message);
    }

    public ConfigException(String message, Throwable cause) {
        super(message, cause);
    }
}
