package dev.pulsebus.config;

/** A configuration that cannot be used: a file that does not parse (with its line), a bad value. */
public final class ConfigException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public ConfigException(String message) {
        super(message);
    }

    public ConfigException(String message, Throwable cause) {
        super(message, cause);
    }
}
