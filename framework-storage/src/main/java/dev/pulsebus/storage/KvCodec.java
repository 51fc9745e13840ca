package dev.pulsebus.storage;

import dev.pulsebus.internal.Names;
import dev.pulsebus.kv.KvException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/** The KV limits and the strict UTF-8 rules of keys and text values, checked before anything is queued. */
final class KvCodec {

    static final int MAX_KEY_CHARS = 255;

    private KvCodec() {
    }

    static String checkNamespace(String name) {
        String problem = Names.problem("KV namespace", name);
        if (problem != null) {
            throw new KvException(problem);
        }
        return name;
    }

    /** Checks a key without allocating: the hot read path calls it. */
    static String checkKey(String key) {
        if (key == null) {
            throw new KvException("KV key is null");
        }
        int n = key.length();
        if (n == 0 || n > MAX_KEY_CHARS) {
            throw new KvException("KV key must be 1 to " + MAX_KEY_CHARS + " characters, was " + n);
        }
        int bad = firstInvalid(key);
        if (bad >= 0) {
            throw new KvException("KV key has " + (key.charAt(bad) == 0 ? "a NUL" : "an unpaired surrogate")
                    + " at index " + bad + ": keys must be valid UTF-8 text without NUL");
        }
        return key;
    }

    /** {@code value} as UTF-8, refusing text that has no UTF-8 form (an unpaired surrogate). */
    static byte[] encode(String key, String value, int maxBytes) {
        if (value == null) {
            throw new KvException("value of '" + key + "' is null: use delete to remove a key");
        }
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (Character.isSurrogate(c) && !pairedAt(value, i)) {
                throw new KvException("value of '" + key + "' is not valid UTF-8: unpaired surrogate at index " + i);
            }
            if (Character.isHighSurrogate(c)) {
                i++;
            }
        }
        return checkSize(key, value.getBytes(StandardCharsets.UTF_8), maxBytes);
    }

    static byte[] checkSize(String key, byte[] value, int maxBytes) {
        if (value == null) {
            throw new KvException("value of '" + key + "' is null: use delete to remove a key");
        }
        if (value.length > maxBytes) {
            throw new KvException("value of '" + key + "' is " + value.length + " bytes, over the limit of "
                    + maxBytes + " (storage max_value_bytes)");
        }
        return value;
    }

    /**
     * Strict decoding: stored bytes that are not UTF-8 are an error, never replacement characters. The
     * JDK's lenient decoding is the fast path (one String, no decoder); only a result holding U+FFFD, which
     * is what lenient decoding puts in place of bad bytes, is checked again strictly.
     */
    static String decode(String key, byte[] bytes) {
        String fast = new String(bytes, StandardCharsets.UTF_8);
        if (fast.indexOf('\uFFFD') < 0) {
            return fast;
        }
        try {
            return StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes)).toString();
        } catch (CharacterCodingException e) {
            throw new KvException("value of '" + key + "' is not valid UTF-8 text; read it with getBytes");
        }
    }

    private static int firstInvalid(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == 0) {
                return i;
            }
            if (Character.isSurrogate(c)) {
                if (!pairedAt(s, i)) {
                    return i;
                }
                i++;
            }
        }
        return -1;
    }

    private static boolean pairedAt(String s, int i) {
        return Character.isHighSurrogate(s.charAt(i)) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1));
    }
}
