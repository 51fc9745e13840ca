package dev.pulsebus.module;

import java.util.List;

/**
 * A piece of a bot, written by anyone: it registers commands, subscriptions and state through the
 * {@link ModuleContext} it is given. Found through {@link java.util.ServiceLoader} (list the class in
 * {@code META-INF/services/dev.pulsebus.module.BotModule}) on the classpath or in a jar of the server's
 * {@code modules/} folder.
 */
public interface BotModule {

    /** A unique name: 1 to 64 characters of {@code A-Z a-z 0-9 . _ -}; also its KV namespace. */
    String name();

    default String version() {
        return "0";
    }

    /** Names of the modules that must load before this one. */
    default List<String> dependencies() {
        return List.of();
    }

    /** Registers what the module does. A throw fails this module's load, and only this module's. */
    void onLoad(ModuleContext ctx) throws Exception;

    /** Releases what the module holds beyond its registrations. */
    default void onUnload(ModuleContext ctx) throws Exception {
    }
}
