package dev.pulsebus.adapter;

import io.netty.buffer.ByteBuf;
import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.math.BigInteger;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A reader of one JSON document (RFC 8259) straight from its UTF-8 bytes, for the decoders on the adapters'
 * hot paths. Jackson's streaming parser decodes every string it is asked for into its own buffer and then
 * again into a {@code String}; here an ASCII string without escapes (ids, types, most keys) is compared and
 * made from the bytes themselves, a value the caller knows is matched against its constants on the bytes,
 * and a key is looked up among those seen before ({@link #name()} makes no string for a key it has made).
 *
 * <p>The caller walks the document: {@link #beginObject()} / {@link #nextField()} and {@link #beginArray()} /
 * {@link #nextElement()} around the values it reads ({@link #string()}, {@link #text()}, {@link #number()},
 * ...) or {@link #skip()}s. Everything is checked as it is read: the grammar, strict UTF-8 (no overlong
 * forms, no surrogates), escapes, unescaped control characters, numbers, nesting up to {@link #MAX_DEPTH},
 * and, at {@link #finish()}, nothing but whitespace after the document; any fault throws
 * {@link MalformedException} saying what and where. Not thread-safe: one per thread, reused document after
 * document ({@link #reset(byte[], int, int)}).
 */
public final class JsonBytes {

    /** The deepest nesting of objects and arrays read (Jackson's default limit). */
    public static final int MAX_DEPTH = 1000;

    /** What {@link #kind()} and {@link #lastKind()} answer. */
    public static final int OBJECT = 1;
    public static final int ARRAY = 2;
    public static final int STRING = 3;
    /** An integer: no fraction, no exponent. */
    public static final int INTEGER = 4;
    /** A number with a fraction or an exponent. */
    public static final int DECIMAL = 5;
    public static final int TRUE = 6;
    public static final int FALSE = 7;
    public static final int NULL = 8;

    /** A document that is not JSON, or nested deeper than {@link #MAX_DEPTH}. */
    public static final class MalformedException extends IOException {
        private static final long serialVersionUID = 1L;

        MalformedException(String message) {
            super(message);
        }
    }

    /**
     * Values a caller knows (types a spec enumerates), by length, with their bytes: {@link #string(Known)}
     * returns one of these constants for a string that reads as it, compared on the bytes.
     */
    public static final class Known {
        final String[][] strings;
        final byte[][][] bytes;

        private Known(String[][] strings) {
            this.strings = strings;
            this.bytes = new byte[strings.length][][];
            for (int length = 0; length < strings.length; length++) {
                bytes[length] = new byte[strings[length].length][];
                for (int k = 0; k < strings[length].length; k++) {
                    bytes[length][k] = strings[length][k].getBytes(StandardCharsets.ISO_8859_1);
                }
            }
        }
    }

    /** The kind of value each first byte starts: {@link #INTEGER} for any number (scanned to know), 0 for none. */
    private static final byte[] KINDS = new byte[256];

    static {
        KINDS['{'] = OBJECT;
        KINDS['['] = ARRAY;
        KINDS['"'] = STRING;
        KINDS['t'] = TRUE;
        KINDS['f'] = FALSE;
        KINDS['n'] = NULL;
        KINDS['-'] = INTEGER;
        for (char c = '0'; c <= '9'; c++) {
            KINDS[c] = INTEGER;
        }
    }

    private static final byte[] EMPTY = new byte[0];
    private static final String[] EMPTY_SEEN = new String[0];
    /** Eight bytes at a time, for the scans of strings (the order the masks below assume). */
    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final long ONES = 0x0101010101010101L;
    private static final long HIGHS = 0x8080808080808080L;
    private static final long QUOTES = 0x2222222222222222L;
    private static final long BACKSLASHES = 0x5C5C5C5C5C5C5C5CL;
    private static final long SPACES = 0x2020202020202020L;
    /** Keys seen before, by their length and a few of their bytes: a key is made once and found again. */
    private static final int NAME_BITS = 9;
    private static final int NAME_SLOTS = 1 << NAME_BITS;
    /** The slots of a reader that has kept no key yet: all empty, never written. */
    private static final String[] NO_NAMES = new String[NAME_SLOTS];
    private static final long[] NO_WORDS = new long[0];
    /** Slots looked at for a key before the first of them is taken over. */
    private static final int NAME_PROBES = 4;
    /** Longer keys are made each time rather than kept. */
    private static final int NAME_MAX = 48;

    private byte[] b = EMPTY;
    private int pos;
    private int end;
    private int depth;
    private int lastKind;
    /** The current key: its bytes {@code [nameStart, nameEnd)} when plain ASCII, else {@code nameText}. */
    private int nameStart;
    private int nameEnd;
    private String nameText = "";
    private String[] names = NO_NAMES; // made at the first key kept
    /** The first sixteen bytes of each kept key, as two words ({@link #word}). */
    private long[] nameWords = NO_WORDS;
    /** The number {@link #kind()} found last: its offset, end and kind, so that reading it does not scan again. */
    private int numberAt = -1;
    private int numberClose;
    private int numberKind;
    private char[] chars = new char[128];
    /** Where a direct buffer's bytes are copied to be read; made at the first. */
    private byte[] scratch = EMPTY;

    /** Starts reading the document in {@code bytes[offset, offset + length)} (a leading UTF-8 BOM is passed over). */
    public JsonBytes reset(byte[] bytes, int offset, int length) {
        b = bytes;
        pos = offset;
        end = offset + length;
        depth = 0;
        lastKind = 0;
        numberAt = -1;
        if (length >= 3 && bytes[offset] == (byte) 0xEF && bytes[offset + 1] == (byte) 0xBB
                && bytes[offset + 2] == (byte) 0xBF) {
            pos += 3;
        }
        return this;
    }

    /**
     * Starts reading {@code in}'s readable bytes (not consumed): a heap buffer in place, a direct one copied
     * into an array kept here (up to 1 MiB; a larger document gets one of its own). The buffer must not
     * change while it is read.
     */
    public JsonBytes reset(ByteBuf in) {
        int n = in.readableBytes();
        if (in.hasArray()) {
            return reset(in.array(), in.arrayOffset() + in.readerIndex(), n);
        }
        byte[] into = scratch;
        if (into.length < n) {
            into = new byte[Math.max(n, Math.max(8192, into.length * 2))];
            if (into.length <= 1024 * 1024) {
                scratch = into;
            }
        }
        in.getBytes(in.readerIndex(), into, 0, n);
        return reset(into, 0, n);
    }

    /** The offset of the next byte to read. */
    public int position() {
        return pos;
    }

    /** The kind of the next value ({@link #OBJECT} ... {@link #NULL}), not read yet. */
    public int kind() throws MalformedException {
        skipWhitespace();
        if (pos >= end) {
            throw malformed("the document ends where a value is expected");
        }
        int kind = KINDS[b[pos] & 0xFF]; // a look-up, not a jump per value
        if (kind == INTEGER) {
            return scanNumberKind();
        }
        if (kind == 0) {
            throw malformed("a value is expected");
        }
        return kind;
    }

    /** The kind of the last scalar {@link #text()} read, or of the container it passed over. */
    public int lastKind() {
        return lastKind;
    }

    /** Reads a {@code null} when one is next; false (nothing read) for any other value. */
    public boolean nullValue() throws MalformedException {
        if (kind() != NULL) {
            return false;
        }
        literal("null");
        return true;
    }

    /** Enters the object that is next; true when it has a field, whose key is then {@link #name()}. */
    public boolean beginObject() throws MalformedException {
        open('{');
        skipWhitespace();
        if (pos < end && b[pos] == '}') {
            pos++;
            depth--;
            return false;
        }
        readName();
        return true;
    }

    /** After a field's value: true when another field follows ({@link #name()}), false at the object's end. */
    public boolean nextField() throws MalformedException {
        skipWhitespace();
        if (pos < end) {
            byte c = b[pos++];
            if (c == ',') {
                skipWhitespace();
                readName();
                return true;
            }
            if (c == '}') {
                depth--;
                return false;
            }
            pos--;
        }
        throw malformed("',' or '}' is expected after a field");
    }

    /** Enters the array that is next; true when an element follows. */
    public boolean beginArray() throws MalformedException {
        open('[');
        skipWhitespace();
        if (pos < end && b[pos] == ']') {
            pos++;
            depth--;
            return false;
        }
        return true;
    }

    /** After an element: true when another follows, false at the array's end. */
    public boolean nextElement() throws MalformedException {
        skipWhitespace();
        if (pos < end) {
            byte c = b[pos++];
            if (c == ',') {
                return true;
            }
            if (c == ']') {
                depth--;
                return false;
            }
            pos--;
        }
        throw malformed("',' or ']' is expected after an element");
    }

    /**
     * The current field's key. A plain ASCII key of up to 48 bytes is made once and returned again while it
     * keeps its slot (the same {@code String}, its hash cached), so a key costs no allocation in steady state;
     * a key given to {@link #names} is returned as that very string.
     */
    public String name() {
        if (nameStart < 0) {
            return nameText;
        }
        int length = nameEnd - nameStart;
        if (length > NAME_MAX) {
            return new String(b, nameStart, length, StandardCharsets.ISO_8859_1);
        }
        long w0 = word(b, nameStart, end, length, 0);
        long w1 = length > 8 ? word(b, nameStart, end, length, 8) : 0;
        int home = home(w0, w1, length);
        int free = -1;
        for (int probe = 0; probe < NAME_PROBES; probe++) {
            int slot = (home + probe) & (NAME_SLOTS - 1);
            String seen = names[slot];
            if (seen == null) {
                free = free < 0 ? slot : free;
            } else if (seen.length() == length && nameWords[slot * 2] == w0 && nameWords[slot * 2 + 1] == w1
                    && (length <= 16 || sameBytes(seen, nameStart + 16, nameEnd, 16))) {
                return seen;
            }
        }
        String made = new String(b, nameStart, length, StandardCharsets.ISO_8859_1);
        keep(free < 0 ? home : free, made, w0, w1); // all taken by other keys: the first is given to this one
        return made;
    }

    /**
     * Keys (ASCII) that {@link #name()} returns as these very strings: a caller that switches on keys finds
     * them by identity. Kept as any key read is, so a document with many other keys may take their slots.
     */
    public JsonBytes names(String... keys) {
        for (String key : keys) {
            byte[] k = key.getBytes(StandardCharsets.ISO_8859_1);
            if (k.length <= NAME_MAX) {
                long w0 = word(k, 0, k.length, k.length, 0);
                long w1 = k.length > 8 ? word(k, 0, k.length, k.length, 8) : 0;
                int home = home(w0, w1, k.length);
                int slot = home;
                for (int probe = 0; probe < NAME_PROBES; probe++) {
                    if (names[(home + probe) & (NAME_SLOTS - 1)] == null) {
                        slot = (home + probe) & (NAME_SLOTS - 1);
                        break;
                    }
                }
                keep(slot, key, w0, w1);
            }
        }
        return this;
    }

    private void keep(int slot, String key, long w0, long w1) {
        if (names == NO_NAMES) {
            names = new String[NAME_SLOTS];
            nameWords = new long[NAME_SLOTS * 2];
        }
        names[slot] = key;
        nameWords[slot * 2] = w0;
        nameWords[slot * 2 + 1] = w1;
    }

    private static int home(long w0, long w1, int length) {
        return (int) ((((w0 + length) * 0x9E3779B97F4A7C15L + w1) * 0xC2B2AE3D27D4EB4FL) >>> (64 - NAME_BITS));
    }

    /**
     * The bytes {@code a[i + from, i + min(length, from + 8))} as a little-endian word, zero above them; eight
     * at once when {@code limit} allows.
     */
    private static long word(byte[] a, int i, int limit, int length, int from) {
        int n = Math.min(length - from, 8);
        int at = i + from;
        if (at + 8 <= limit) {
            long w = (long) LONGS.get(a, at);
            return n == 8 ? w : w & ((1L << (n << 3)) - 1);
        }
        long w = 0;
        for (int k = n - 1; k >= 0; k--) {
            w = (w << 8) | (a[at + k] & 0xFF);
        }
        return w;
    }

    /** Whether the current field's key is {@code ascii}, compared without making it. */
    public boolean nameIs(String ascii) {
        if (nameStart < 0) {
            return nameText.equals(ascii);
        }
        return nameEnd - nameStart == ascii.length() && sameBytes(ascii, nameStart, nameEnd);
    }

    /** The string that is next; a {@link MalformedException} for any other value. */
    public String string() throws MalformedException {
        if (kind() != STRING) {
            throw malformed("a string is expected");
        }
        lastKind = STRING;
        return readString();
    }

    /**
     * The string that is next as one of {@code known} when it is one (compared on the bytes), else made; any
     * other scalar as {@link #text()} does.
     */
    public String string(Known known) throws MalformedException {
        return string(known, EMPTY_SEEN, 0);
    }

    /**
     * As {@link #string(Known)}, but a plain ASCII string that is none of {@code known} is also looked for
     * among {@code seen[0, count)} (strings made before), compared on the bytes, and returned as that string
     * rather than made again.
     */
    public String string(Known known, String[] seen, int count) throws MalformedException {
        if (kind() != STRING) {
            return text();
        }
        lastKind = STRING;
        int start = pos + 1;
        int close = plainEnd(start);
        if (close < 0) {
            return readString();
        }
        int length = close - start;
        pos = close + 1;
        if (length < known.strings.length) {
            byte[][] candidates = known.bytes[length];
            for (int k = 0; k < candidates.length; k++) {
                if (Arrays.equals(candidates[k], 0, length, b, start, close)) {
                    return known.strings[length][k];
                }
            }
        }
        if (length == 0) {
            return "";
        }
        for (int i = 0; i < count; i++) {
            String s = seen[i];
            if (s.length() == length && sameBytes(s, start, close)) {
                return s;
            }
        }
        return new String(b, start, length, StandardCharsets.ISO_8859_1);
    }

    /**
     * The scalar that is next as text: a string as itself, a number as its literal, {@code true},
     * {@code false} or {@code null}; an object or array is passed over as {@code ""}. {@link #lastKind()}
     * says which it was.
     */
    public String text() throws MalformedException {
        int kind = kind();
        lastKind = kind;
        return switch (kind) {
            case STRING -> readString();
            case INTEGER, DECIMAL -> {
                int start = pos;
                scanNumber();
                yield new String(b, start, pos - start, StandardCharsets.ISO_8859_1);
            }
            case TRUE -> literal("true");
            case FALSE -> literal("false");
            case NULL -> literal("null");
            default -> {
                skip();
                yield "";
            }
        };
    }

    /** As {@link #text()}, but {@code same} itself when the scalar reads as it (compared on the bytes). */
    public String text(String same) throws MalformedException {
        int kind = kind();
        int start = kind == STRING ? pos + 1 : pos;
        int close = switch (kind) {
            case STRING -> plainEnd(start);
            case INTEGER, DECIMAL -> numberClose;
            default -> -1;
        };
        if (close - start == same.length() && sameBytes(same, start, close)) {
            lastKind = kind;
            pos = kind == STRING ? close + 1 : close;
            return same;
        }
        return text();
    }

    /**
     * The number that is next as a {@code Long} (an integer within a long), a {@code BigInteger} (beyond) or
     * a {@code Double}; a {@link MalformedException} for any other value.
     */
    public Object number() throws MalformedException {
        int kind = kind();
        lastKind = kind;
        if (kind == INTEGER) {
            int start = pos;
            scanNumber();
            int digits = pos - start - (b[start] == '-' ? 1 : 0);
            if (digits <= 18) {
                return parseLong(start, pos);
            }
            return numberAt(start, pos);
        }
        if (kind == DECIMAL) {
            int start = pos;
            scanNumber();
            return Double.parseDouble(new String(b, start, pos - start, StandardCharsets.ISO_8859_1));
        }
        throw malformed("a number is expected");
    }

    /** Whether the value that is next is an integer within a long (then {@link #longValue} reads it exactly). */
    public boolean isLong() throws MalformedException {
        if (kind() != INTEGER) {
            return false;
        }
        boolean negative = b[pos] == '-';
        int start = negative ? pos + 1 : pos;
        int digits = numberClose - start;
        if (digits != 19) {
            return digits < 19;
        }
        String limit = negative ? "9223372036854775808" : "9223372036854775807";
        for (int i = 0; i < 19; i++) {
            if (b[start + i] != limit.charAt(i)) {
                return b[start + i] < limit.charAt(i);
            }
        }
        return true;
    }

    /**
     * The value that is next as a long: an integer as itself (its low 64 bits past a long), a decimal cut
     * toward zero, a string of digits as its number; {@code otherwise} for anything else (passed over).
     */
    public long longValue(long otherwise) throws MalformedException {
        int kind = kind();
        if (kind == INTEGER) {
            int start = pos;
            scanNumber();
            lastKind = kind;
            int digits = pos - start - (b[start] == '-' ? 1 : 0);
            return digits <= 18 ? parseLong(start, pos) : ((Number) numberAt(start, pos)).longValue();
        }
        if (kind == DECIMAL) {
            return ((Number) number()).longValue();
        }
        if (kind == STRING) {
            String s = string();
            try {
                return Long.parseLong(s.trim());
            } catch (NumberFormatException e) {
                return otherwise;
            }
        }
        skip();
        lastKind = kind;
        return otherwise;
    }

    /**
     * The scalar whose first byte is at {@code mark} (a {@link #position()} taken before it was passed over) as
     * {@link #text()} reads it, read again without moving: for a value needed only once what follows it is known.
     */
    public String textAt(int mark) throws MalformedException {
        int here = pos;
        int kind = lastKind;
        pos = mark;
        try {
            return text();
        } finally {
            pos = here;
            lastKind = kind;
        }
    }

    /** The integer of more than 18 digits in {@code [start, close)}: a Long when it fits, else a BigInteger. */
    private Object numberAt(int start, int close) {
        BigInteger big = new BigInteger(new String(b, start, close - start, StandardCharsets.ISO_8859_1));
        return big.bitLength() < 64 ? (Object) big.longValue() : big;
    }

    /** A copy of the document's bytes from {@code mark} (a {@link #position()} taken before) to the position now. */
    public byte[] bytesSince(int mark) {
        return Arrays.copyOfRange(b, mark, pos);
    }

    /** Passes over the value that is next, checking it as it goes. */
    public void skip() throws MalformedException {
        switch (kind()) {
            case OBJECT -> {
                if (beginObject()) {
                    do {
                        skip();
                    } while (nextField());
                }
            }
            case ARRAY -> {
                if (beginArray()) {
                    do {
                        skip();
                    } while (nextElement());
                }
            }
            case STRING -> {
                int close = plainEnd(pos + 1);
                pos = close >= 0 ? close + 1 : scanString(pos + 1, false);
            }
            case INTEGER, DECIMAL -> scanNumber();
            case TRUE -> literal("true");
            case FALSE -> literal("false");
            default -> literal("null");
        }
    }

    /** Checks that nothing but whitespace follows the document. */
    public void finish() throws MalformedException {
        skipWhitespace();
        if (pos != end) {
            throw malformed("something follows the document");
        }
    }

    /** The constants {@link #string(Known)} returns for strings that read as them; ASCII values only. */
    public static Known known(String... values) {
        return new Known(byLength(values));
    }

    private static String[][] byLength(String... values) {
        int longest = 0;
        for (String v : values) {
            longest = Math.max(longest, v.length());
        }
        String[][] table = new String[longest + 1][];
        for (int length = 0; length <= longest; length++) {
            int len = length;
            table[length] = Arrays.stream(values).filter(v -> v.length() == len).toArray(String[]::new);
        }
        return table;
    }

    // ---- the scanner ----

    private MalformedException malformed(String what) {
        return new MalformedException("not JSON: " + what + " at byte " + pos);
    }

    private void skipWhitespace() {
        while (pos < end) {
            byte c = b[pos];
            if (c != ' ' && c != '\n' && c != '\r' && c != '\t') {
                return;
            }
            pos++;
        }
    }

    private void open(char c) throws MalformedException {
        skipWhitespace();
        if (pos >= end || b[pos] != c) {
            throw malformed("'" + c + "' is expected");
        }
        if (++depth > MAX_DEPTH) {
            throw malformed("nesting deeper than " + MAX_DEPTH);
        }
        pos++;
    }

    private String literal(String word) throws MalformedException {
        int n = word.length();
        if (end - pos < n || !sameBytes(word, pos, pos + n)) {
            throw malformed("a value is expected");
        }
        pos += n;
        return word;
    }

    /** Reads a key and the colon after it: plain ASCII as a span of the bytes, anything else decoded. */
    private void readName() throws MalformedException {
        if (pos >= end || b[pos] != '"') {
            throw malformed("a key is expected");
        }
        int start = pos + 1;
        int close = plainEnd(start);
        if (close >= 0) {
            nameStart = start;
            nameEnd = close;
            pos = close + 1;
        } else {
            nameStart = -1;
            nameText = readString();
        }
        skipWhitespace();
        if (pos >= end || b[pos] != ':') {
            throw malformed("':' is expected after a key");
        }
        pos++;
    }

    /**
     * The offset of the closing quote of a string starting at {@code start} that is plain ASCII (no escape, no
     * control character); else -1. Eight bytes at a time: a byte that is a quote, a backslash, below 0x20 or
     * not ASCII is found with the carries of a subtraction; the lowest such byte is found exactly.
     */
    private int plainEnd(int start) {
        int i = start;
        while (i + 8 <= end) {
            long w = (long) LONGS.get(b, i);
            long q = w ^ QUOTES;
            long s = w ^ BACKSLASHES;
            long found = ((q - ONES) & ~q) | ((s - ONES) & ~s) | (w - SPACES) | w;
            found &= HIGHS;
            if (found != 0) {
                i += Long.numberOfTrailingZeros(found) >>> 3;
                return b[i] == '"' ? i : -1;
            }
            i += 8;
        }
        for (; i < end; i++) {
            byte c = b[i];
            if (c == '"') {
                return i;
            }
            if (c < 0x20 || c == '\\') {
                return -1;
            }
        }
        return -1;
    }

    /** The string at {@code pos} (its opening quote): made from the bytes when plain ASCII, else decoded. */
    private String readString() throws MalformedException {
        int start = pos + 1;
        int close = plainEnd(start);
        if (close >= 0) {
            pos = close + 1;
            return close == start ? "" : new String(b, start, close - start, StandardCharsets.ISO_8859_1);
        }
        int after = scanString(start, true);
        String s = new String(chars, 0, decoded);
        pos = after;
        return s;
    }

    /** The characters {@link #scanString} decoded last, in {@link #chars}. */
    private int decoded;

    /**
     * Checks the string from {@code i} (after its opening quote) to its closing quote, decoding it into
     * {@link #chars} when {@code keep}; the offset after the closing quote.
     */
    private int scanString(int i, boolean keep) throws MalformedException {
        int n = 0;
        char[] out = chars;
        while (true) {
            if (i >= end) {
                pos = i;
                throw malformed("a string is not closed");
            }
            if (keep && n + 2 > out.length) {
                out = chars = Arrays.copyOf(out, out.length * 2);
            }
            int c = b[i] & 0xFF;
            if (c == '"') {
                decoded = n;
                return i + 1;
            }
            if (c == '\\') {
                if (i + 1 >= end) {
                    pos = i;
                    throw malformed("a string is not closed");
                }
                int e = b[i + 1];
                char ch;
                switch (e) {
                    case '"' -> ch = '"';
                    case '\\' -> ch = '\\';
                    case '/' -> ch = '/';
                    case 'b' -> ch = '\b';
                    case 'f' -> ch = '\f';
                    case 'n' -> ch = '\n';
                    case 'r' -> ch = '\r';
                    case 't' -> ch = '\t';
                    case 'u' -> {
                        ch = (char) hex4(i + 2);
                        i += 4;
                    }
                    default -> {
                        pos = i;
                        throw malformed("an unknown escape");
                    }
                }
                if (keep) {
                    out[n] = ch;
                }
                n++;
                i += 2;
            } else if (c < 0x20) {
                pos = i;
                throw malformed("a control character in a string");
            } else if (c < 0x80) {
                if (keep) {
                    out[n] = (char) c;
                }
                n++;
                i++;
            } else {
                int cp = utf8(i, c);
                int width = cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
                if (keep) {
                    n += Character.toChars(cp, out, n);
                } else {
                    n += Character.charCount(cp);
                }
                i += width;
            }
        }
    }

    /** The code point of the UTF-8 sequence at {@code i} (lead byte {@code c}), checked strictly. */
    private int utf8(int i, int c) throws MalformedException {
        int width;
        int cp;
        int low = 0x80;
        int high = 0xBF;
        if (c >= 0xC2 && c <= 0xDF) {
            width = 2;
            cp = c & 0x1F;
        } else if (c >= 0xE0 && c <= 0xEF) {
            width = 3;
            cp = c & 0x0F;
            if (c == 0xE0) {
                low = 0xA0; // no overlong form
            } else if (c == 0xED) {
                high = 0x9F; // no surrogate
            }
        } else if (c >= 0xF0 && c <= 0xF4) {
            width = 4;
            cp = c & 0x07;
            if (c == 0xF0) {
                low = 0x90;
            } else if (c == 0xF4) {
                high = 0x8F; // up to U+10FFFF
            }
        } else {
            pos = i;
            throw malformed("not UTF-8");
        }
        if (i + width > end) {
            pos = i;
            throw malformed("not UTF-8");
        }
        for (int k = 1; k < width; k++) {
            int next = b[i + k] & 0xFF;
            if (next < (k == 1 ? low : 0x80) || next > (k == 1 ? high : 0xBF)) {
                pos = i;
                throw malformed("not UTF-8");
            }
            cp = (cp << 6) | (next & 0x3F);
        }
        return cp;
    }

    private int hex4(int i) throws MalformedException {
        if (i + 4 > end) {
            pos = i;
            throw malformed("a \\u escape is cut short");
        }
        int v = 0;
        for (int k = i; k < i + 4; k++) {
            int d = Character.digit(b[k], 16);
            if (d < 0) {
                pos = k;
                throw malformed("a \\u escape has a non-hex digit");
            }
            v = (v << 4) | d;
        }
        return v;
    }

    /** The kind of the number at {@code pos} (not read), checked; kept for the read that follows. */
    private int scanNumberKind() throws MalformedException {
        if (numberAt == pos) {
            return numberKind;
        }
        int close = numberEnd(pos);
        if (close < 0) {
            throw malformed("a number is malformed");
        }
        int kind = INTEGER;
        for (int i = pos; i < close; i++) {
            byte c = b[i];
            if (c == '.' || c == 'e' || c == 'E') {
                kind = DECIMAL;
                break;
            }
        }
        numberAt = pos;
        numberClose = close;
        numberKind = kind;
        return kind;
    }

    private void scanNumber() throws MalformedException {
        scanNumberKind();
        pos = numberClose;
    }

    /** The end of the number starting at {@code i} as the grammar reads it; -1 when it is malformed. */
    private int numberEnd(int i) {
        if (i < end && b[i] == '-') {
            i++;
        }
        if (i >= end) {
            return -1;
        }
        if (b[i] == '0') {
            i++;
        } else if (b[i] >= '1' && b[i] <= '9') {
            i = digits(i);
        } else {
            return -1;
        }
        if (i < end && b[i] == '.') {
            int from = ++i;
            i = digits(i);
            if (i == from) {
                return -1;
            }
        }
        if (i < end && (b[i] == 'e' || b[i] == 'E')) {
            i++;
            if (i < end && (b[i] == '+' || b[i] == '-')) {
                i++;
            }
            int from = i;
            i = digits(i);
            if (i == from) {
                return -1;
            }
        }
        if (i < end && b[i] >= '0' && b[i] <= '9') {
            return -1; // a leading zero
        }
        return i;
    }

    private int digits(int i) {
        while (i < end && b[i] >= '0' && b[i] <= '9') {
            i++;
        }
        return i;
    }

    private long parseLong(int start, int close) {
        boolean negative = b[start] == '-';
        long v = 0;
        for (int i = negative ? start + 1 : start; i < close; i++) {
            v = v * 10 + (b[i] - '0');
        }
        return negative ? -v : v;
    }

    private boolean sameBytes(String s, int from, int to) {
        return sameBytes(s, from, to, 0);
    }

    /** Whether {@code b[from, to)} holds the characters of {@code s} from {@code skip} on. */
    private boolean sameBytes(String s, int from, int to, int skip) {
        for (int i = from; i < to; i++) {
            if (b[i] != s.charAt(i - from + skip)) {
                return false;
            }
        }
        return true;
    }
}
