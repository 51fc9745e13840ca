package dev.pulsebus.command;

import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.MissingResourceException;
import java.util.ResourceBundle;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Finds the router's answers for a sender's language: the bundle {@code dev/pulsebus/command/messages}
 * (English, and Chinese in {@code messages_zh}), then the texts an embedder added for that language.
 * Each language is resolved once and cached; at most {@link #MAX_CACHED} languages are kept, so odd
 * locales sent by a platform cannot grow the cache.
 */
final class MessageCatalog {

    static final String BUNDLE = "dev.pulsebus.command.messages";
    static final int MAX_CACHED = 64;

    private final Map<String, Map<String, String>> overridesByLanguage;
    private final ConcurrentHashMap<Locale, Messages> cache = new ConcurrentHashMap<>();

    MessageCatalog(Map<String, Map<String, String>> overridesByLanguage) {
        this.overridesByLanguage = Map.copyOf(overridesByLanguage);
    }

    Messages forLocale(Locale locale) {
        Messages m = cache.get(locale);
        if (m != null) {
            return m;
        }
        m = load(locale);
        if (cache.size() < MAX_CACHED) {
            Messages prev = cache.putIfAbsent(locale, m);
            return prev != null ? prev : m;
        }
        return m;
    }

    private Messages load(Locale locale) {
        Map<String, String> texts = new HashMap<>();
        ResourceBundle bundle;
        try {
            bundle = ResourceBundle.getBundle(BUNDLE, locale,
                    ResourceBundle.Control.getNoFallbackControl(ResourceBundle.Control.FORMAT_PROPERTIES));
        } catch (MissingResourceException e) {
            bundle = ResourceBundle.getBundle(BUNDLE, Locale.ROOT);
        }
        for (String key : bundle.keySet()) {
            texts.put(key, bundle.getString(key));
        }
        Map<String, String> extra = overridesByLanguage.get(locale.getLanguage());
        if (extra != null) {
            texts.putAll(extra);
        }
        return new Messages(texts);
    }
}
