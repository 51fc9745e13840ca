package dev.pulsebus.command;

import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;

/** A message as a test writes it, keeping the router's answers (also for other modules' tests, in the test jar). */
public final class Msg implements CommandSource {

    public final List<String> replies = new CopyOnWriteArrayList<>();
    private final String text;
    private final String user;
    private final String chat;
    private boolean mentions;
    private SenderRole role = SenderRole.MEMBER;
    private Locale locale = Locale.ENGLISH;
    private String platform = "test";

    public Msg(String text, String user, String chat) {
        this.text = text;
        this.user = user;
        this.chat = chat;
    }

    public static Msg of(String text) {
        return new Msg(text, "u1", "g1");
    }

    Msg mentioning() {
        mentions = true;
        return this;
    }

    Msg role(SenderRole r) {
        role = r;
        return this;
    }

    Msg locale(Locale l) {
        locale = l;
        return this;
    }

    Msg platform(String p) {
        platform = p;
        return this;
    }

    @Override
    public String platform() {
        return platform;
    }

    @Override
    public String text() {
        return text;
    }

    @Override
    public String userId() {
        return user;
    }

    @Override
    public String chatId() {
        return chat;
    }

    @Override
    public boolean mentionsBot() {
        return mentions;
    }

    @Override
    public SenderRole senderRole() {
        return role;
    }

    @Override
    public Locale locale() {
        return locale;
    }

    @Override
    public CompletionStage<String> reply(String reply) {
        replies.add(reply);
        return CompletableFuture.completedFuture("reply-" + replies.size());
    }
}
