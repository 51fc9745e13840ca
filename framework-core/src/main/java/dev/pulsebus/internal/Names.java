package dev.pulsebus.internal;

import org.jspecify.annotations.Nullable;

/**
 * The one rule for names that become keys, paths and labels (KV namespaces, module names, HTTP rooms):
 * 1 to 64 characters of {@code A-Z a-z 0-9 . _ -}. Internal to PulseBus: not an API.
 */
public final class Names {

    public static final int MAX = 64;

    private Names() {
    }

    /** Null when {@code name} follows the rule; otherwise what is wrong, starting with {@code what}. */
    public static @Nullable String problem(String what, @Nullable String name) {
        if (name == null || name.isEmpty() || name.length() > MAX) {
            return what + " must be 1 to " + MAX + " characters, was "
                    + (name == null ? "null" : name.isEmpty() ? "empty" : name.length() + " characters");
        }
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_'
                    || c == '-')) {
                return what + " may use only A-Z a-z 0-9 . _ - (found '" + c + "' at " + i + ")";
            }
        }
        return null;
    }
}
