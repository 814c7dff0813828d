/**
 * ysuite-amqp: publishing to an AMQP 0-9-1 broker from many application threads through ysuite
 * pipes, one thread owning RabbitMQ's {@code Channel} ({@code org.ysuite.amqp.AmqpPublisher}), and a
 * consumer that hands deliveries to an application thread through a pipe
 * ({@code org.ysuite.amqp.AmqpConsumer}).
 *
 * <p>Only {@code org.ysuite.amqp} is exported. {@code requires org.ysuite.amqp;} also gives the
 * application {@code com.rabbitmq.client} (amqp-client's automatic module name), whose
 * {@code ConnectionFactory} appears in this module's API.
 */
@SuppressWarnings({"requires-automatic", "requires-transitive-automatic"}) // com.rabbitmq.client: no descriptor
module org.ysuite.amqp {
    requires transitive com.rabbitmq.client;
    requires org.ysuite;

    exports org.ysuite.amqp;
}
