package dev.pulsebus.telegram;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pulsebus.event.ChannelMessage;
import dev.pulsebus.event.Event;
import dev.pulsebus.event.GroupMessage;
import dev.pulsebus.event.NoticeEvent;
import dev.pulsebus.event.PrivateMessage;
import dev.pulsebus.event.Segment;
import dev.pulsebus.internal.Json;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Updates shaped as the Bot API documentation's objects (Update, Message, MessageEntity, PhotoSize, Document,
 * Sticker, ChatMemberUpdated, CallbackQuery), with its field names and types, decoded for bot 123456 whose
 * username is {@code pulse_test_bot}.
 */
class UpdateDecoderTest {

    private static final Instant NOW = Instant.ofEpochSecond(1_700_000_000);

    private static Event decode(String json) throws Exception {
        byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
        return UpdateDecoder.forThisThread().decode(bytes, 0, bytes.length, "123456", "pulse_test_bot", NOW);
    }

    private static final String FROM = """
            "from": {"id": 1111111, "is_bot": false, "first_name": "Test Firstname", "username": "Testusername"}""";

    @Test
    void commandForThisBotHasItsUsernameStrippedAndIsAPrivateMessage() throws Exception {
        PrivateMessage m = (PrivateMessage) decode("""
                {"update_id": 10000, "message": {"message_id": 1365, "date": 1441645532, %s,
                 "chat": {"id": 1111111, "type": "private", "first_name": "Test Firstname"},
                 "text": "/start@pulse_test_bot now", "entities": [{"type": "bot_command", "offset": 0, "length": 21}]}}
                """.formatted(FROM));
        assertThat(m.id()).isEqualTo("tg:123456:10000");
        assertThat(m.self().platform()).isEqualTo("telegram");
        assertThat(m.messageId()).isEqualTo("1365");
        assertThat(m.userId()).isEqualTo("1111111");
        assertThat(m.time()).isEqualTo(Instant.ofEpochSecond(1441645532));
        assertThat(m.message().segments()).containsExactly(new Segment.Text("/start now"));
        assertThat(m.extra()).containsEntry("update_type", "message").containsKey("chat").containsKey("from");
    }

    @Test
    void commandForAnotherBotIsNoCommandHere() throws Exception {
        GroupMessage m = (GroupMessage) decode("""
                {"update_id": 10001, "message": {"message_id": 7, "date": 1441645532, %s,
                 "chat": {"id": -1001234567890, "type": "supergroup", "title": "Group"},
                 "text": "/start@other_bot x", "entities": [{"type": "bot_command", "offset": 0, "length": 16}]}}
                """.formatted(FROM));
        assertThat(m.groupId()).isEqualTo("-1001234567890");
        assertThat(m.message().segments()).containsExactly(
                new Segment.Other("bot_command", Map.of("command", "/start@other_bot", "bot", "other_bot")),
                new Segment.Text(" x"));
        assertThat(m.message().commandText("123456")).doesNotStartWith("/start");
    }

    @Test
    void mentionsAndTextMentionsAreMentionsAndTheBotsOwnIsItsId() throws Exception {
        GroupMessage m = (GroupMessage) decode("""
                {"update_id": 10002, "message": {"message_id": 8, "date": 1441645532, %s,
                 "chat": {"id": -42, "type": "group", "title": "Group"},
                 "text": "@pulse_test_bot hi @alice and Bob https://t.me",
                 "entities": [{"type": "mention", "offset": 0, "length": 15}, {"type": "mention", "offset": 19, "length": 6},
                  {"type": "text_mention", "offset": 30, "length": 3, "user": {"id": 222, "is_bot": false, "first_name": "Bob"}},
                  {"type": "url", "offset": 34, "length": 12}]}}
                """.formatted(FROM));
        assertThat(m.message().segments()).containsExactly(new Segment.Mention("123456"), new Segment.Text(" hi "),
                new Segment.Mention("alice"), new Segment.Text(" and "), new Segment.Mention("222"),
                new Segment.Text(" https://t.me"));
        assertThat(m.message().mentions("123456")).isTrue();
        assertThat((java.util.List<?>) m.extra().get("entities")).hasSize(4); // the url entity kept as sent
    }

    @Test
    void photoDocumentAndStickerAreSegmentsWithTheirFileId() throws Exception {
        PrivateMessage photo = (PrivateMessage) decode("""
                {"update_id": 1, "message": {"message_id": 9, "date": 1441645532, %s,
                 "chat": {"id": 1111111, "type": "private"}, "caption": "look",
                 "photo": [{"file_id": "small", "file_unique_id": "s", "width": 90, "height": 60, "file_size": 1000},
                           {"file_id": "large", "file_unique_id": "l", "width": 1280, "height": 853}]}}
                """.formatted(FROM));
        assertThat(photo.message().segments()).containsExactly(new Segment.Image("large"), new Segment.Text("look"));
        PrivateMessage doc = (PrivateMessage) decode("""
                {"update_id": 2, "message": {"message_id": 10, "date": 1441645532, %s,
                 "chat": {"id": 1111111, "type": "private"},
                 "document": {"file_id": "BQACAgIAAxkBAAIB", "file_unique_id": "u", "file_name": "a.pdf",
                  "mime_type": "application/pdf"}}}
                """.formatted(FROM));
        assertThat(doc.message().segments()).singleElement().satisfies(s -> {
            assertThat(s.type()).isEqualTo("document");
            assertThat(((Segment.Other) s).data()).containsEntry("file_id", "BQACAgIAAxkBAAIB");
        });
        PrivateMessage sticker = (PrivateMessage) decode("""
                {"update_id": 3, "message": {"message_id": 11, "date": 1441645532, %s,
                 "chat": {"id": 1111111, "type": "private"},
                 "sticker": {"file_id": "CAACAgIAAxkBAAIC", "file_unique_id": "v", "type": "regular", "width": 512,
                  "height": 512, "is_animated": false, "is_video": false, "emoji": "👍"}}}
                """.formatted(FROM));
        assertThat(((Segment.Other) sticker.message().segments().get(0)).data())
                .containsEntry("file_id", "CAACAgIAAxkBAAIC").containsEntry("emoji", "👍");
    }

    @Test
    void replyToMessageIsAReplySegmentFirst() throws Exception {
        GroupMessage m = (GroupMessage) decode("""
                {"update_id": 4, "message": {"message_id": 12, "date": 1441645532, %s,
                 "chat": {"id": -42, "type": "group", "title": "G"}, "text": "yes",
                 "reply_to_message": {"message_id": 11, "date": 1441645000, "chat": {"id": -42, "type": "group"},
                  "from": {"id": 333, "is_bot": false, "first_name": "C"}, "text": "well?"}}}
                """.formatted(FROM));
        assertThat(m.message().segments()).containsExactly(new Segment.Reply("11", "333"), new Segment.Text("yes"));
    }

    @Test
    void editsAndChannelPostsAreMessagesToo() throws Exception {
        PrivateMessage edited = (PrivateMessage) decode("""
                {"update_id": 5, "edited_message": {"message_id": 12, "date": 1441645532, "edit_date": 1441645600, %s,
                 "chat": {"id": 1111111, "type": "private"}, "text": "fixed"}}
                """.formatted(FROM));
        assertThat(edited.subType()).isEqualTo("edited");
        assertThat(edited.time()).isEqualTo(Instant.ofEpochSecond(1441645600));
        ChannelMessage post = (ChannelMessage) decode("""
                {"update_id": 6, "channel_post": {"message_id": 3, "date": 1441645532,
                 "sender_chat": {"id": -1009, "type": "channel", "title": "News"},
                 "chat": {"id": -1009, "type": "channel", "title": "News"}, "text": "news"}}
                """);
        assertThat(post.channelId()).isEqualTo("-1009");
        assertThat(post.userId()).isEqualTo("-1009");
        assertThat(Sender.chatId(post.chat())).isEqualTo("-1009");
    }

    @Test
    void memberChangesAndCallbackQueriesAreNotices() throws Exception {
        NoticeEvent member = (NoticeEvent) decode("""
                {"update_id": 7, "my_chat_member": {"chat": {"id": -42, "type": "group", "title": "G"}, %s,
                 "date": 1441645532,
                 "old_chat_member": {"status": "member", "user": {"id": 123456, "is_bot": true, "first_name": "P"}},
                 "new_chat_member": {"status": "kicked", "until_date": 0,
                  "user": {"id": 123456, "is_bot": true, "first_name": "P"}}}}
                """.formatted(FROM));
        assertThat(member.detailType()).isEqualTo("my_chat_member");
        assertThat(member.subType()).isEqualTo("kicked");
        assertThat(member.fields()).containsKey("chat");
        NoticeEvent query = (NoticeEvent) decode("""
                {"update_id": 8, "callback_query": {"id": "4382bfdwdsf43", %s, "chat_instance": "-7654",
                 "data": "option_1"}}
                """.formatted(FROM));
        assertThat(query.detailType()).isEqualTo("callback_query");
        assertThat(query.fields()).containsEntry("data", "option_1");
        assertThat(query.time()).isEqualTo(NOW);
    }

    @Test
    void fieldsComeInAnyOrderAndRepeatedObjectsAreReadOnce() throws Exception {
        GroupMessage m = (GroupMessage) decode("""
                {"message": {"text": "hi", "chat": {"id": -42, "type": "group", "title": "G"}, "date": 1441645532,
                 "reply_to_message": {"chat": {"id": -42, "type": "group", "title": "G"}, "message_id": 11,
                  "date": 1441645000}, "message_id": 12, "edit_date": null}, "update_id": 4}
                """);
        assertThat(m.id()).isEqualTo("tg:123456:4");
        assertThat(m.groupId()).isEqualTo("-42");
        assertThat(m.message().segments()).containsExactly(new Segment.Reply("11", null), new Segment.Text("hi"));
        Object chat = m.extra().get("chat");
        assertThat(((Map<?, ?>) m.extra().get("reply_to_message")).get("chat")).isSameAs(chat).isEqualTo(
                Map.of("id", -42L, "type", "group", "title", "G"));
        assertThat(m.extra()).doesNotContainKey("edit_date"); // a JSON null is left out
        assertThat(m.time()).isEqualTo(Instant.ofEpochSecond(1441645532));
    }

    @Test
    void oddShapesAreReadAsExtraKeepsThem() throws Exception {
        // nulls are no values, the last of a repeated key counts, anything of the wrong type is none
        GroupMessage m = (GroupMessage) decode("""
                {"update_id": 5, "message": {"message_id": 3, "date": 5, "edit_date": "soon",
                 "chat": {"id": -1, "type": "group", "id": null}, "from": {"id": 7, "id": "x"},
                 "sender_chat": {"id": 9}, "text": "hi @bob /x@pulse_test_bot", "text": null,
                 "entities": [null, 5, {"type": "mention", "offset": 3, "length": 4, "offset": null},
                  {"type": "bot_command", "offset": 99999999999, "length": 2},
                  {"type": "text_mention", "offset": -4294967290, "length": 4294967296, "user": {"id": 1}}],
                 "photo": [{"file_id": "small"}, {"file_id": "large"}, null], "document": {"file_id": "d"},
                 "document": 1, "reply_to_message": {"message_id": 2, "from": {"id": 8}}, "reply_to_message": null}}
                """);
        assertThat(m.groupId()).isEqualTo("-1");
        assertThat(m.userId()).isEqualTo("9");
        assertThat(m.time()).isEqualTo(Instant.ofEpochSecond(5));
        assertThat(m.message().segments()).containsExactly(new Segment.Reply("2", "8"), new Segment.Image("large"),
                new Segment.Text("hi "), new Segment.Mention("bob"), new Segment.Text(" /x@pulse_test_bot"));
        assertThat(m.extra()).containsEntry("chat", Map.of("id", -1L, "type", "group"))
                .containsEntry("from", Map.of("id", "x")).containsEntry("document", 1L)
                .containsEntry("text", "hi @bob /x@pulse_test_bot").containsEntry("edit_date", "soon");
    }

    @Test
    void extraHoldsEveryFieldOfTheMessageAsSent() throws Exception {
        String update = """
                {"update_id": 6, "message": {"message_id": 4, "date": 1441645532, %s,
                 "chat": {"id": 1111111, "type": "private", "first_name": "Test Firstname"},
                 "reply_to_message": {"message_id": 3, "date": 1441645000, %s,
                  "chat": {"id": 1111111, "type": "private"}, "text": "caf\u00e9 \ud83d\ude00"},
                 "text": "\u00fcber", "entities": [{"type": "bold", "offset": 0, "length": 4}],
                 "has_protected_content": true, "link_preview_options": {"is_disabled": false, "url": null}}}
                """.formatted(FROM, FROM);
        PrivateMessage m = (PrivateMessage) decode(update);
        Map<String, Object> expected = Json.MAPPER.readerFor(java.util.LinkedHashMap.class)
                .with(com.fasterxml.jackson.databind.DeserializationFeature.USE_LONG_FOR_INTS)
                .readValue(Json.MAPPER.readTree(update).get("message"));
        ((Map<?, ?>) expected.get("link_preview_options")).remove("url"); // a JSON null is left out
        expected.put("update_type", "message");
        assertThat(m.extra()).isEqualTo(expected);
        assertThat(m.extra().keySet()).containsExactlyElementsOf(expected.keySet());
        assertThat(m.message().segments()).containsExactly(new Segment.Reply("3", "1111111"),
                new Segment.Text("\u00fcber"));
    }

    /**
     * Updates whose message fields were replaced at random (by nulls, values of other types, numbers past a
     * long, objects, or left out): the record read as the message streams past agrees with the message as a
     * tree says it, and extra holds that message, whatever the shape.
     */
    @Test
    void theRecordAgreesWithTheMessageWhateverItsShape() throws Exception {
        com.fasterxml.jackson.databind.node.ObjectNode sample = (com.fasterxml.jackson.databind.node.ObjectNode)
                Json.MAPPER.readTree("""
                {"update_id": 77, "message": {"message_id": 5123, "date": 1441645532, "edit_date": 1441645600,
                 "from": {"id": 7654321, "is_bot": false, "first_name": "Alice"},
                 "sender_chat": {"id": -1009, "type": "channel"},
                 "chat": {"id": -1001234567890, "title": "T", "type": "supergroup"},
                 "reply_to_message": {"message_id": 5120, "from": {"id": 1234567}, "date": 1441645000},
                 "photo": [{"file_id": "small"}, {"file_id": "large"}],
                 "text": "/weather@pulse_test_bot Tokyo @carol_c", "caption": "c",
                 "entities": [{"offset": 0, "length": 23, "type": "bot_command"},
                  {"offset": 30, "length": 8, "type": "mention"}]}}""");
        String[] paths = {"message_id", "date", "edit_date", "from", "from.id", "sender_chat", "sender_chat.id",
            "chat", "chat.id", "chat.type", "reply_to_message", "reply_to_message.message_id",
            "reply_to_message.from", "reply_to_message.from.id", "photo", "text", "caption", "entities"};
        com.fasterxml.jackson.databind.JsonNode[] values = {
            Json.MAPPER.nullNode(), Json.MAPPER.getNodeFactory().textNode("12"),
            Json.MAPPER.getNodeFactory().numberNode(new java.math.BigInteger("123456789012345678901")),
            Json.MAPPER.getNodeFactory().numberNode(1.5), Json.MAPPER.getNodeFactory().numberNode(-3L),
            Json.MAPPER.createObjectNode(), Json.MAPPER.createArrayNode(), Json.MAPPER.getNodeFactory().booleanNode(true),
            Json.MAPPER.getNodeFactory().textNode("private"), Json.MAPPER.getNodeFactory().textNode("group")};
        java.util.Random random = new java.util.Random(19);
        int decoded = 0;
        for (int round = 0; round < 3000; round++) {
            com.fasterxml.jackson.databind.node.ObjectNode update = sample.deepCopy();
            com.fasterxml.jackson.databind.node.ObjectNode m = (com.fasterxml.jackson.databind.node.ObjectNode)
                    update.get("message");
            for (int k = random.nextInt(3) + 1; k > 0; k--) {
                String[] path = paths[random.nextInt(paths.length)].split("\\.");
                com.fasterxml.jackson.databind.JsonNode parent = m;
                for (int i = 0; i < path.length - 1 && parent != null; i++) {
                    parent = parent.get(path[i]);
                }
                if (parent instanceof com.fasterxml.jackson.databind.node.ObjectNode o) {
                    if (random.nextInt(5) == 0) {
                        o.remove(path[path.length - 1]);
                    } else {
                        o.set(path[path.length - 1], values[random.nextInt(values.length)]);
                    }
                }
            }
            String json = Json.MAPPER.writeValueAsString(update);
            Long messageId = integer(m.get("message_id"));
            Long chatId = integer(m.path("chat").get("id"));
            Long date = integer(m.get("date"));
            String chatType = m.path("chat").path("type").isTextual() ? m.path("chat").path("type").asText() : "";
            if (messageId == null || chatId == null || date == null
                    || !java.util.Set.of("private", "group", "supergroup", "channel").contains(chatType)) {
                assertThatThrownBy(() -> decode(json)).as(json).isInstanceOf(IllegalArgumentException.class);
                continue;
            }
            dev.pulsebus.event.MessageEvent e = (dev.pulsebus.event.MessageEvent) decode(json);
            decoded++;
            assertThat(e.messageId()).as(json).isEqualTo(messageId.toString());
            if (!chatType.equals("private")) { // a private chat is its user's
                assertThat(e.chat().id()).as(json).isEqualTo(chatId.toString());
            }
            Long edited = integer(m.get("edit_date"));
            assertThat(e.time()).as(json).isEqualTo(Instant.ofEpochSecond(edited != null ? edited : date));
            Long from = integer(m.path("from").get("id"));
            Long senderChat = integer(m.path("sender_chat").get("id"));
            assertThat(e.userId()).as(json).isEqualTo(
                    String.valueOf(from != null ? from : senderChat != null ? senderChat : chatId));
            Long replyId = integer(m.path("reply_to_message").get("message_id"));
            Long replyFrom = integer(m.path("reply_to_message").path("from").get("id"));
            java.util.List<Segment> segments = e.message().segments();
            if (replyId != null) {
                assertThat(segments.get(0)).as(json).isEqualTo(new Segment.Reply(replyId.toString(),
                        replyFrom == null ? null : replyFrom.toString()));
            } else {
                assertThat(segments).as(json).noneMatch(x -> x instanceof Segment.Reply);
            }
            com.fasterxml.jackson.databind.JsonNode photo = m.get("photo");
            if (photo != null && photo.isArray() && !photo.isEmpty()) {
                assertThat(segments).as(json).contains(new Segment.Image(photo.get(photo.size() - 1).path("file_id")
                        .asText("")));
            } else {
                assertThat(segments).as(json).noneMatch(x -> x instanceof Segment.Image);
            }
            if (!m.path("text").isTextual() && !m.path("caption").isTextual()) {
                assertThat(segments).as(json).noneMatch(x -> x instanceof Segment.Text);
            }
            @SuppressWarnings("unchecked")
            Map<String, Object> expected = (Map<String, Object>) plain(m);
            expected.put("update_type", "message");
            assertThat(e.extra()).as(json).isEqualTo(expected);
        }
        assertThat(decoded).isGreaterThan(500); // enough of them were messages to compare
    }

    private static @org.jspecify.annotations.Nullable Long integer(
            com.fasterxml.jackson.databind.@org.jspecify.annotations.Nullable JsonNode n) {
        return n != null && n.isIntegralNumber() && n.canConvertToLong() ? n.longValue() : null;
    }

    /** {@code n} as the plain values extra holds: nulls left out, integers as longs past which big. */
    private static Object plain(com.fasterxml.jackson.databind.JsonNode n) {
        if (n.isObject()) {
            Map<String, Object> out = new java.util.LinkedHashMap<>();
            n.properties().forEach(f -> {
                if (!f.getValue().isNull()) {
                    out.put(f.getKey(), plain(f.getValue()));
                }
            });
            return out;
        }
        if (n.isArray()) {
            java.util.List<Object> out = new java.util.ArrayList<>();
            n.forEach(e -> {
                if (!e.isNull()) {
                    out.add(plain(e));
                }
            });
            return out;
        }
        if (n.isIntegralNumber()) {
            return n.canConvertToLong() ? (Object) n.longValue() : n.bigIntegerValue();
        }
        return n.isNumber() ? n.doubleValue() : n.isBoolean() ? n.booleanValue() : n.asText();
    }

    @Test
    void anUnknownUpdateKeepsItsJsonAsSent() throws Exception {
        NoticeEvent n = (NoticeEvent) decode("""
                {"update_id": 9, "poll": {"id": "5", "question": "Q?", "options": [{"text": "a", "voter_count": 0}],
                 "total_voter_count": 0, "is_closed": false, "explanation": null}}
                """);
        assertThat(n.detailType()).isEqualTo("poll");
        assertThat(n.fields()).containsEntry("question", "Q?").doesNotContainKey("explanation");
        assertThat(Json.MAPPER.readTree((String) n.fields().get("raw"))).isEqualTo(Json.MAPPER.readTree("""
                {"update_id": 9, "poll": {"id": "5", "question": "Q?", "options": [{"text": "a", "voter_count": 0}],
                 "total_voter_count": 0, "is_closed": false, "explanation": null}}
                """));
    }

    @Test
    void updatesWithoutWhatTheyNeedAreRefused() {
        assertThatThrownBy(() -> decode("{\"message\": {}}")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("update_id");
        assertThatThrownBy(() -> decode("{\"update_id\": 1}")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> decode("{\"update_id\": 1, \"message\": {\"message_id\": 1, \"date\": 1}}"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("chat.id");
        assertThatThrownBy(() -> decode("[1]")).isInstanceOf(java.io.IOException.class);
        assertThatThrownBy(() -> decode("{\"update_id\": 1, \"poll\": {}} {}")) // a webhook answers it 400
                .isInstanceOf(java.io.IOException.class).hasMessageContaining("follows the document");
    }

    @Test
    void splitCutsAtALineThenAWordAndNeverInsideASurrogatePair() {
        assertThat(Sender.split("short")).containsExactly("short");
        String lines = "a".repeat(4000) + "\n" + "b".repeat(200);
        assertThat(Sender.split(lines)).containsExactly("a".repeat(4000), "b".repeat(200));
        String words = "c".repeat(4090) + " " + "d".repeat(10);
        assertThat(Sender.split(words)).containsExactly("c".repeat(4090), "d".repeat(10));
        String emoji = "x".repeat(4095) + "😀" + "y";
        assertThat(Sender.split(emoji)).containsExactly("x".repeat(4095), "😀y");
    }
}
