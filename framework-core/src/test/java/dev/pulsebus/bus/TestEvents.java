package dev.pulsebus.bus;

/** Chat-shaped events for the bus tests: a sealed family, as the OneBot events will be. */
final class TestEvents {

    private TestEvents() {
    }

    sealed interface MessageEvent extends KeyedEvent permits GroupMessage, PrivateMessage {
        String text();
    }

    record GroupMessage(long group, String text, int seq) implements MessageEvent {
        GroupMessage(long group, String text) {
            this(group, text, 0);
        }

        @Override
        public Object orderingKey() {
            return group;
        }
    }

    record PrivateMessage(long user, String text) implements MessageEvent {
        @Override
        public Object orderingKey() {
            return "user:" + user;
        }
    }

    record MemberJoined(long group, long user) {
    }
}
