package dev.pulsebus.module;

/** Applies a module's own schema migrations ({@link ModuleContext#migrate}); the server's is its storage. */
@FunctionalInterface
public interface Migrator {

    /** Applies the migrations in classpath folder {@code location} of {@code loader}; returns how many ran. */
    int migrate(String module, ClassLoader loader, String location);
}
