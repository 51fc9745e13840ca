package dev.pulsebus.adapter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.core.json.JsonWriteFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.io.IOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link JsonBytes} against RFC 8259: what it reads is what Jackson's tree reads from the same bytes (documents
 * written here and thousands of random ones), and what is not JSON is refused with where it went wrong.
 */
class JsonBytesTest {

    /** Jackson as strict as the RFC: nothing may follow the document. */
    private static final ObjectMapper JACKSON = new ObjectMapper()
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .enable(DeserializationFeature.USE_BIG_INTEGER_FOR_INTS);

    private final JsonBytes json = new JsonBytes();

    @ParameterizedTest
    @ValueSource(strings = {
        "{}", "[]", "0", "-0", "1.5e3", "-12.25E-2", "true", "false", "null", "\"\"",
        " \t\r\n{ \"a\" : [ 1 , 2 ] , \"b\" : { } } \n",
        "{\"a\":1,\"a\":2}",
        "[9223372036854775807,-9223372036854775808,9223372036854775808,123456789012345678901234567890]",
        "[999999999999999999,1000000000000000000,-999999999999999999]",
        "\"\\\"\\\\\\/\\b\\f\\n\\r\\t\\u0041\\u00e9\\u4e2d\\ud83d\\ude00\"",
        "\"小不点 设计组 😀 é\"",
        "{\"k\\u0065y\":\"v\",\"ключ\":\"значение\",\"\":0}",
        "{\"post_type\":\"message\",\"message\":[{\"type\":\"text\",\"data\":{\"text\":\"hi\"}}],\"x\":[[[]]]}",
    })
    void readsWhatJacksonReads(String document) throws IOException {
        assertSameAsJackson(document.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void readsRandomDocumentsAsJacksonDoes() throws IOException {
        Random random = new Random(20261203);
        for (int i = 0; i < 3000; i++) {
            Object value = randomValue(random, 0);
            byte[] compact = JACKSON.writeValueAsBytes(value);
            assertSameAsJackson(compact);
            byte[] ascii = JACKSON.writer().with(JsonWriteFeature.ESCAPE_NON_ASCII).writeValueAsBytes(value);
            assertSameAsJackson(ascii);
            byte[] pretty = JACKSON.writerWithDefaultPrettyPrinter().writeValueAsBytes(value);
            assertSameAsJackson(pretty);
        }
    }

    @Test
    void aDocumentRefusedByJacksonIsRefusedAndOneAcceptedReadsTheSame() throws IOException {
        Random random = new Random(7);
        byte[] alphabet = "{}[]\",:\\-+.eE0123456789 tfnulrsa\u0001".getBytes(StandardCharsets.ISO_8859_1);
        int refused = 0;
        for (int i = 0; i < 5000; i++) {
            byte[] doc = JACKSON.writeValueAsBytes(randomValue(random, 0));
            int changes = 1 + random.nextInt(3);
            for (int c = 0; c < changes && doc.length > 0; c++) {
                doc[random.nextInt(doc.length)] = alphabet[random.nextInt(alphabet.length)];
            }
            JsonNode jackson;
            try {
                jackson = JACKSON.readTree(doc);
            } catch (IOException e) {
                if (e.getMessage().contains("surrogate in field name")
                        || e.getMessage().contains("surrogate pair in field name")) {
                    continue; // Jackson's own rule for keys; the RFC's grammar takes an escaped lone surrogate
                }
                jackson = null;
            }
            Object ours;
            try {
                ours = read(doc, 0, doc.length);
            } catch (JsonBytes.MalformedException e) {
                ours = e;
            }
            if (jackson == null || jackson.isMissingNode()) {
                assertThat(ours).as(new String(doc, StandardCharsets.UTF_8))
                        .isInstanceOf(JsonBytes.MalformedException.class);
                refused++;
            } else {
                assertThat(ours).as(new String(doc, StandardCharsets.UTF_8)).isEqualTo(plain(jackson));
            }
        }
        assertThat(refused).as("the mutations make broken documents").isGreaterThan(1000);
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "", " ", "{", "[", "{\"a\"}", "{\"a\":}", "{\"a\":1,}", "[1,]", "[,1]", "{,}", "{\"a\" 1}", "{a:1}",
        "{'a':1}", "[1 2]", "01", "-", "-01", "1.", ".5", "1e", "1e+", "+1", "0x10", "NaN", "Infinity",
        "tru", "nul", "True", "\"abc", "\"\\x\"", "\"\\u12\"", "\"\\u12G4\"", "\"a\tb\"", "\"a\nb\"",
        "{} {}", "[] x", "1 2", "\"a\" \"b\"", "[\"a\":1]", "{\"a\":1]", "[1}",
    })
    void refusesWhatIsNotJson(String document) {
        byte[] bytes = document.getBytes(StandardCharsets.UTF_8);
        assertThatThrownBy(() -> read(bytes, 0, bytes.length)).isInstanceOf(JsonBytes.MalformedException.class)
                .hasMessageStartingWith("not JSON: ").hasMessageContaining(" at byte ");
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "22 80 22", // a lone continuation byte
        "22 C0 80 22", "22 C1 BF 22", // overlong forms of U+0000 and U+007F
        "22 E0 80 80 22", "22 F0 80 80 80 22", // overlong three and four bytes
        "22 ED A0 80 22", // a surrogate (U+D800) encoded
        "22 F4 90 80 80 22", // past U+10FFFF
        "22 E4 B8 22", // cut short
        "22 F8 88 80 80 80 22", "22 FF 22", // no such lead byte
    })
    void refusesStringsThatAreNotUtf8(String hex) {
        byte[] bytes = HexFormat.ofDelimiter(" ").parseHex(hex);
        assertThatThrownBy(() -> read(bytes, 0, bytes.length)).isInstanceOf(JsonBytes.MalformedException.class)
                .hasMessageContaining("not UTF-8");
    }

    @Test
    void nestingIsCheckedAtItsLimit() throws IOException {
        String deepest = "[".repeat(JsonBytes.MAX_DEPTH) + "]".repeat(JsonBytes.MAX_DEPTH);
        assertThat(read(deepest.getBytes(StandardCharsets.US_ASCII), 0, deepest.length())).isInstanceOf(List.class);
        String deeper = "[".repeat(JsonBytes.MAX_DEPTH + 1) + "]".repeat(JsonBytes.MAX_DEPTH + 1);
        assertThatThrownBy(() -> read(deeper.getBytes(StandardCharsets.US_ASCII), 0, deeper.length()))
                .isInstanceOf(JsonBytes.MalformedException.class).hasMessageContaining("nesting deeper than 1000");
        String objects = "{\"a\":".repeat(JsonBytes.MAX_DEPTH + 1) + "1" + "}".repeat(JsonBytes.MAX_DEPTH + 1);
        assertThatThrownBy(() -> json.reset(objects.getBytes(StandardCharsets.US_ASCII), 0, objects.length()).skip())
                .isInstanceOf(JsonBytes.MalformedException.class).hasMessageContaining("nesting deeper than 1000");
    }

    @Test
    void readsASliceAndADirectBufferAndPassesOverABom() throws IOException {
        byte[] framed = "xx{\"a\":[1,\"é\"]}yy".getBytes(StandardCharsets.UTF_8);
        assertThat(read(framed, 2, framed.length - 4)).isEqualTo(Map.of("a", List.of(1L, "é")));
        byte[] bom = {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF, '[', '1', ']'};
        assertThat(read(bom, 0, bom.length)).isEqualTo(List.of(1L));
        ByteBuf direct = Unpooled.directBuffer().writeBytes(framed, 2, framed.length - 4);
        try {
            JsonBytes j = json.reset(direct);
            assertThat(value(j)).isEqualTo(Map.of("a", List.of(1L, "é")));
            j.finish();
            assertThat(direct.readerIndex()).as("the buffer is not consumed").isZero();
        } finally {
            direct.release();
        }
    }

    @Test
    void keysComeBackAsTheSameStringsAndCollidingKeysStayApart() throws IOException {
        StringBuilder doc = new StringBuilder("{");
        for (int i = 0; i < 2000; i++) {
            doc.append(i == 0 ? "" : ",").append("\"k").append(i).append("\":").append(i);
        }
        byte[] bytes = doc.append('}').toString().getBytes(StandardCharsets.US_ASCII);
        for (int round = 0; round < 2; round++) {
            JsonBytes j = json.reset(bytes, 0, bytes.length);
            int i = 0;
            assertThat(j.beginObject()).isTrue();
            do {
                assertThat(j.name()).isEqualTo("k" + i);
                assertThat(j.nameIs("k" + i)).isTrue();
                assertThat(j.number()).isEqualTo((long) i);
                i++;
            } while (j.nextField());
            j.finish();
            assertThat(i).isEqualTo(2000);
        }
        byte[] small = "{\"type\":1,\"type\":2,\"t\\u0079pe\":3}".getBytes(StandardCharsets.US_ASCII);
        JsonBytes j = json.reset(small, 0, small.length);
        j.beginObject();
        String first = j.name();
        j.skip();
        j.nextField();
        assertThat(j.name()).isSameAs(first).isEqualTo("type");
        j.skip();
        j.nextField();
        assertThat(j.name()).isEqualTo("type");
        assertThat(j.nameIs("type")).isTrue();

        String given = new String("a_key_longer_than_sixteen_bytes".toCharArray());
        byte[] named = "{\"type\":1,\"a_key_longer_than_sixteen_bytes\":2,\"a_key_longer_than_sixteen_bytez\":3}"
                .getBytes(StandardCharsets.US_ASCII);
        JsonBytes primed = new JsonBytes().names("type", given).reset(named, 0, named.length);
        primed.beginObject();
        assertThat(primed.name()).isSameAs("type");
        primed.skip();
        primed.nextField();
        assertThat(primed.name()).isSameAs(given);
        primed.skip();
        primed.nextField();
        assertThat(primed.name()).isEqualTo("a_key_longer_than_sixteen_bytez");
    }

    @Test
    void knownValuesAreTheConstantsAndTextReadsAnyScalar() throws IOException {
        JsonBytes.Known known = JsonBytes.known("group", "private", "");
        byte[] doc = "[\"group\",\"private\",\"\",\"grou\\u0070\",\"other\",12,\"12\",1.50,true,null,{\"a\":1},[2]]"
                .getBytes(StandardCharsets.US_ASCII);
        JsonBytes j = json.reset(doc, 0, doc.length);
        j.beginArray();
        String group = "group";
        assertThat(j.string(known)).isSameAs(group);
        j.nextElement();
        assertThat(j.string(known)).isSameAs("private");
        j.nextElement();
        assertThat(j.string(known)).isSameAs("");
        j.nextElement();
        assertThat(j.string(known)).isEqualTo("group");
        j.nextElement();
        assertThat(j.string(known)).isEqualTo("other");
        j.nextElement();
        int twelve = j.position();
        assertThat(j.text("12")).isSameAs("12");
        assertThat(j.lastKind()).isEqualTo(JsonBytes.INTEGER);
        j.nextElement();
        assertThat(j.text("12")).isSameAs("12");
        assertThat(j.lastKind()).isEqualTo(JsonBytes.STRING);
        j.nextElement();
        assertThat(j.text()).isEqualTo("1.50");
        assertThat(j.lastKind()).isEqualTo(JsonBytes.DECIMAL);
        assertThat(j.textAt(twelve)).isEqualTo("12");
        assertThat(j.lastKind()).as("re-reading does not move").isEqualTo(JsonBytes.DECIMAL);
        j.nextElement();
        assertThat(j.text()).isEqualTo("true");
        j.nextElement();
        assertThat(j.nullValue()).isTrue();
        j.nextElement();
        assertThat(j.text()).isEmpty();
        assertThat(j.lastKind()).isEqualTo(JsonBytes.OBJECT);
        j.nextElement();
        assertThat(j.longValue(-1)).isEqualTo(-1);
        assertThat(j.nextElement()).isFalse();
        j.finish();
    }

    @Test
    void longValueReadsNumbersAndDigitStrings() throws IOException {
        byte[] doc = "[1515204254,\"42\",2.9,-7,\"x\",18446744073709551617]".getBytes(StandardCharsets.US_ASCII);
        JsonBytes j = json.reset(doc, 0, doc.length);
        List<Long> read = new ArrayList<>();
        if (j.beginArray()) {
            do {
                read.add(j.longValue(-1));
            } while (j.nextElement());
        }
        assertThat(read).containsExactly(1515204254L, 42L, 2L, -7L, -1L, 1L);
    }

    @Test
    void isLongKnowsTheEdgesOfALong() throws IOException {
        byte[] doc = ("[9223372036854775807,9223372036854775808,-9223372036854775808,-9223372036854775809,"
                + "1000000000000000000,99999999999999999999,1.0,\"1\"]").getBytes(StandardCharsets.US_ASCII);
        JsonBytes j = json.reset(doc, 0, doc.length);
        List<Boolean> fits = new ArrayList<>();
        List<Long> values = new ArrayList<>();
        j.beginArray();
        do {
            boolean isLong = j.isLong();
            fits.add(isLong);
            long v = j.longValue(-1);
            if (isLong) {
                values.add(v);
            }
        } while (j.nextElement());
        assertThat(fits).containsExactly(true, false, true, false, true, false, false, false);
        assertThat(values).containsExactly(Long.MAX_VALUE, Long.MIN_VALUE, 1000000000000000000L);
    }

    @Test
    void aStringSeenBeforeIsReturnedAgainAndASpanCanBeCopied() throws IOException {
        byte[] doc = "{\"a\": \"PulseBus testers\", \"b\": {\"x\": [1, 2]}}".getBytes(StandardCharsets.US_ASCII);
        String seen = new String("PulseBus testers".toCharArray());
        JsonBytes j = json.reset(doc, 0, doc.length);
        j.beginObject();
        assertThat(j.string(JsonBytes.known(), new String[] {"other", seen}, 2)).isSameAs(seen);
        j.nextField();
        int mark = j.position();
        j.skip();
        assertThat(new String(j.bytesSince(mark), StandardCharsets.US_ASCII)).isEqualTo(" {\"x\": [1, 2]}");
        assertThat(j.nextField()).isFalse();
        j.finish();
    }

    private void assertSameAsJackson(byte[] document) throws IOException {
        assertThat(read(document, 0, document.length)).as(new String(document, StandardCharsets.UTF_8))
                .isEqualTo(plain(JACKSON.readTree(document)));
    }

    /** The document as plain values: maps (last key wins), lists, Long/BigInteger, Double, String, Boolean, null. */
    private Object read(byte[] bytes, int offset, int length) throws JsonBytes.MalformedException {
        JsonBytes j = json.reset(bytes, offset, length);
        Object value = value(j);
        j.finish();
        return value;
    }

    private static Object value(JsonBytes j) throws JsonBytes.MalformedException {
        switch (j.kind()) {
            case JsonBytes.OBJECT -> {
                Map<String, Object> map = new LinkedHashMap<>();
                if (j.beginObject()) {
                    do {
                        String key = j.name();
                        map.put(key, value(j));
                    } while (j.nextField());
                }
                return map;
            }
            case JsonBytes.ARRAY -> {
                List<Object> list = new ArrayList<>();
                if (j.beginArray()) {
                    do {
                        list.add(value(j));
                    } while (j.nextElement());
                }
                return list;
            }
            case JsonBytes.STRING -> {
                return j.string();
            }
            case JsonBytes.INTEGER, JsonBytes.DECIMAL -> {
                return j.number();
            }
            case JsonBytes.NULL -> {
                assertThat(j.nullValue()).isTrue();
                return null;
            }
            default -> {
                return Boolean.valueOf(j.text());
            }
        }
    }

    private static Object plain(JsonNode n) {
        if (n.isObject()) {
            Map<String, Object> map = new LinkedHashMap<>();
            n.properties().forEach(e -> map.put(e.getKey(), plain(e.getValue())));
            return map;
        }
        if (n.isArray()) {
            List<Object> list = new ArrayList<>();
            n.forEach(e -> list.add(plain(e)));
            return list;
        }
        if (n.isIntegralNumber()) {
            BigInteger big = n.bigIntegerValue();
            return big.bitLength() < 64 ? (Object) big.longValue() : big;
        }
        if (n.isNumber()) {
            return n.doubleValue();
        }
        if (n.isTextual()) {
            return n.textValue();
        }
        if (n.isBoolean()) {
            return n.booleanValue();
        }
        return null;
    }

    private static Object randomValue(Random r, int depth) {
        int pick = r.nextInt(depth > 4 ? 6 : 8);
        return switch (pick) {
            case 0 -> r.nextBoolean();
            case 1 -> r.nextInt(3) == 0 ? (Object) r.nextLong() : (Object) (long) r.nextInt(1000);
            case 2 -> r.nextInt(3) == 0 ? new BigInteger(70 + r.nextInt(40), r).negate() : new BigInteger(70, r);
            case 3 -> (r.nextDouble() - 0.5) * Math.pow(10, r.nextInt(40) - 20);
            case 4, 5 -> randomString(r);
            case 6 -> {
                Map<String, Object> map = new LinkedHashMap<>();
                int n = r.nextInt(6);
                for (int i = 0; i < n; i++) {
                    map.put(r.nextInt(4) == 0 ? randomString(r) : "k" + r.nextInt(20), randomValue(r, depth + 1));
                }
                yield map;
            }
            default -> {
                List<Object> list = new ArrayList<>();
                int n = r.nextInt(6);
                for (int i = 0; i < n; i++) {
                    list.add(r.nextInt(8) == 0 ? null : randomValue(r, depth + 1));
                }
                yield list;
            }
        };
    }

    private static String randomString(Random r) {
        StringBuilder s = new StringBuilder();
        int n = r.nextInt(r.nextInt(4) == 0 ? 40 : 12);
        for (int i = 0; i < n; i++) {
            switch (r.nextInt(10)) {
                case 0 -> s.append((char) r.nextInt(0x20)); // escaped when written
                case 1 -> s.append('"').append('\\');
                case 2 -> s.append((char) (0x80 + r.nextInt(0x780))); // two bytes
                case 3 -> s.append((char) (0x800 + r.nextInt(0xD000 - 0x800))); // three bytes
                case 4 -> s.appendCodePoint(0x10000 + r.nextInt(0x100000)); // four bytes, a surrogate pair
                default -> s.append((char) (0x20 + r.nextInt(0x5F)));
            }
        }
        return s.toString();
    }
}
