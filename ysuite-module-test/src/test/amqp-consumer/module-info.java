/**
 * A consumer of ysuite-amqp on the module path, compiled and run by {@code AmqpModulePathTest}: it
 * requires nothing but {@code org.ysuite.amqp}, whose {@code requires transitive} must give it
 * amqp-client's {@code com.rabbitmq.client}, whose {@code ConnectionFactory} it uses.
 */
module org.ysuite.moduletest.amqp {
    requires org.ysuite.amqp;

    exports org.ysuite.moduletest.amqp;
}
