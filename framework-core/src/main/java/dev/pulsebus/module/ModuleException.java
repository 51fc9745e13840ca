package dev.pulsebus.module;

/** Modules that cannot be loaded: a dependency missing or in a cycle, a duplicate name, a bad jar. */
public final class ModuleException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public ModuleException(String message) {
        super(message);
    }

    public ModuleException(String message, Throwable cause) {
        super(message, cause);
    }
}
